import { randomBytes, randomUUID } from "node:crypto";
import { type SelectQueryBuilder, sql } from "kysely";
import { z } from "zod";
import type { Db } from "../db";
import { preparedQuery } from "../db/prepared";
import type { Database, NewsletterRow, NewsletterStatus } from "../db/schema";
import { findImagesByUrl } from "../files/stored-images";
import type { TenantScope } from "../scope";
import { sanitizeNewsletterHtml } from "./sanitize";
import { syncSearchIndex } from "./search";
import { firstFreeSlug, isUsableSlug, MAX_SLUG_LENGTH, slugFor } from "./slugs";
import { removeUnusedTags, setNewsletterTags, type Tag, tagsFieldSchema } from "./tags";

/** The newsletter form (SPEC §2, §5): all four fields required, read time at least 1 minute. */
export const newsletterInputSchema = z
  .object({
    title: z
      .string({ error: "Title is required" })
      .trim()
      .min(1, "Title is required")
      .max(200, "Title must be at most 200 characters"),
    excerpt: z
      .string({ error: "Excerpt is required" })
      .trim()
      .min(1, "Excerpt is required")
      .max(500, "Excerpt must be at most 500 characters"),
    content: z
      .string({ error: "Content is required" })
      .max(500_000, "Content is too long")
      .refine(
        (html) =>
          sanitizeNewsletterHtml(html)
            .replace(/<[^>]*>/g, "")
            .trim().length > 0 || /<img\s/i.test(html),
        {
          message: "Content is required",
        },
      ),
    // Blank: made from the title (new), or kept (existing). Issue 15, part 1.
    slug: z
      .string()
      .trim()
      .toLowerCase()
      .max(MAX_SLUG_LENGTH, `The URL must be at most ${MAX_SLUG_LENGTH} characters`)
      .refine((slug) => slug === "" || isUsableSlug(slug), {
        message: "The URL may use lower-case letters, digits and single hyphens only",
      })
      .optional(),
    // Blank: counted from the text (issue 15); a number overrides the count.
    readTime: z.coerce
      .number({ error: "Read time must be a number of minutes" })
      .int("Read time must be a whole number of minutes")
      .min(1, "Read time must be at least 1 minute")
      .max(600, "Read time must be at most 600 minutes")
      .optional(),
    // Comma-separated names (issue 15, part 2); absent: the tags stay as they are.
    tags: tagsFieldSchema.optional(),
    // An image uploaded to this tenant (/uploads/…), checked on save; blank: no cover. Part 4.
    coverImage: z
      .string()
      .trim()
      .max(300, "Choose the cover image again")
      .refine((url) => url === "" || COVER_URL.test(url), {
        message: "Choose the cover image again",
      })
      .optional(),
    coverAlt: z
      .string()
      .trim()
      .max(300, "The cover's description must be at most 300 characters")
      .optional(),
  })
  .refine((input) => !input.coverImage || Boolean(input.coverAlt), {
    path: ["coverAlt"],
    message: "Describe the cover image for readers who cannot see it",
  });

const COVER_URL = /^\/uploads\/[a-z0-9-]+\/[a-f0-9]{32}\.(?:png|jpe?g|gif|webp)$/;

export const COVER_NOT_FOUND =
  "That cover image is not among this site's uploads. Upload it again.";

/** A cover image that is not one of the tenant's uploads. */
export class CoverImageNotFoundError extends Error {
  constructor() {
    super(COVER_NOT_FOUND);
  }
}

/** Words a minute a reader gets through: the usual estimate for reading on screen. */
export const WORDS_PER_MINUTE = 230;

/** Minutes to read sanitised newsletter HTML: its words ÷ 230, at least 1. */
export function estimateReadTime(html: string): number {
  const text = html.replace(/<[^>]*>/g, " ").replace(/&[a-z#0-9]+;/gi, " ");
  const words = text.split(/\s+/).filter((word) => /[\p{L}\p{N}]/u.test(word)).length;
  return Math.max(1, Math.round(words / WORDS_PER_MINUTE));
}

export type NewsletterInput = z.infer<typeof newsletterInputSchema>;

export const SLUG_TAKEN = "Another newsletter has, or had, this URL. Choose another one.";

/** A slug the writer chose that another newsletter of the tenant holds (now or before). */
export class NewsletterSlugTakenError extends Error {
  constructor() {
    super(SLUG_TAKEN);
  }
}

export class NewsletterNotFoundError extends Error {
  constructor(id: string) {
    super(`Newsletter with ID ${id} not found`);
  }
}

/** What pages show of a newsletter (SPEC §3 field names). */
export interface Newsletter {
  id: string;
  tenantId: string;
  title: string;
  excerpt: string;
  content: string;
  readTime: number;
  status: NewsletterStatus;
  /** publishedAt for published newsletters, else createdAt (SPEC's `date`) */
  date: string;
  metrics: { views: number; comments: number };
  createdAt: string;
  updatedAt: string;
  publishedAt: string | null;
  sentAt: string | null;
  campaignId: string | null;
  sendStatus: string | null;
  /** its readable URL: /newsletter/{slug} */
  slug: string;
  /** the staff member who wrote it, when known */
  authorId: string | null;
  /** an imported post's byline, shown when no staff member's byline applies */
  authorName: string | null;
  /** the cover image's /uploads/… URL and its description, when it has one */
  coverImage: string | null;
  coverAlt: string | null;
  /** when this draft publishes itself (UTC), and whether it is sent as email then */
  scheduledAt: string | null;
  scheduledSend: boolean;
  /** whether preview links may be live (they are signed with this key) */
  sharing: boolean;
}

/** A newsletter as lists show it: all but its content, which no list reads. */
export type NewsletterListItem = Omit<Newsletter, "content">;

/** The columns of a NewsletterListItem: a list leaves the content's pages unread. */
const LIST_COLUMNS = [
  "id",
  "tenant_id",
  "title",
  "excerpt",
  "read_time",
  "status",
  "views",
  "comments",
  "created_at",
  "updated_at",
  "published_at",
  "sent_at",
  "campaign_id",
  "send_status",
  "slug",
  "author_id",
  "author_name",
  "cover_image",
  "cover_alt",
  "scheduled_at",
  "scheduled_send",
  "preview_key",
] as const satisfies readonly Exclude<keyof NewsletterRow, "content">[];

type ListedRow = Pick<NewsletterRow, (typeof LIST_COLUMNS)[number]>;

/**
 * A newsletter as the staff lists' cards show it (the dashboard, the CMS), with the list's order
 * (its last change). A page of cards reads these columns only: most of a row's columns lie after
 * its content in the row, and reading each costs SQLite a walk past it (decision 022, fourth pass).
 */
export interface NewsletterSummary {
  id: string;
  title: string;
  excerpt: string;
  status: NewsletterStatus;
  /** published, else created */
  date: string;
  updatedAt: string;
  metrics: { views: number; comments: number };
  /** its public address's part, for the View link */
  slug: string;
}

const SUMMARY_COLUMNS = [
  "id",
  "title",
  "excerpt",
  "status",
  "views",
  "comments",
  "created_at",
  "updated_at",
  "published_at",
  "slug",
] as const satisfies readonly (typeof LIST_COLUMNS)[number][];

type SummaryRow = Pick<NewsletterRow, (typeof SUMMARY_COLUMNS)[number]>;

function toSummary(row: SummaryRow): NewsletterSummary {
  return {
    id: row.id,
    title: row.title,
    excerpt: row.excerpt,
    status: row.status,
    date: row.published_at ?? row.created_at,
    updatedAt: row.updated_at,
    metrics: { views: Number(row.views), comments: Number(row.comments) },
    slug: row.slug ?? row.id,
  };
}

export function toNewsletter(row: NewsletterRow): Newsletter {
  return { ...toListItem(row), content: row.content };
}

function toListItem(row: ListedRow): NewsletterListItem {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    title: row.title,
    excerpt: row.excerpt,
    readTime: row.read_time,
    status: row.status,
    date: row.published_at ?? row.created_at,
    metrics: { views: Number(row.views), comments: Number(row.comments) },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    publishedAt: row.published_at,
    sentAt: row.sent_at,
    campaignId: row.campaign_id,
    sendStatus: row.send_status,
    slug: row.slug ?? row.id,
    authorId: row.author_id,
    authorName: row.author_name,
    coverImage: row.cover_image,
    coverAlt: row.cover_image ? (row.cover_alt ?? "") : null,
    scheduledAt: row.scheduled_at,
    scheduledSend: Number(row.scheduled_send) === 1,
    sharing: row.preview_key !== null,
  };
}

/** Creates a draft. Content is sanitised before it is stored. */
export async function createNewsletter(
  ctx: TenantScope & { authorId: string | null },
  input: NewsletterInput,
): Promise<Newsletter> {
  const now = new Date().toISOString();
  const content = sanitizeNewsletterHtml(input.content);
  const id = randomUUID();
  await checkCover(ctx, input);
  const row = {
    id,
    tenant_id: ctx.tenantId,
    title: input.title,
    excerpt: input.excerpt,
    content,
    read_time: input.readTime ?? estimateReadTime(content),
    status: "draft" as const,
    author_id: ctx.authorId,
    created_at: now,
    updated_at: now,
    published_at: null,
    sent_at: null,
    campaign_id: null,
    send_status: null,
    mailerlite_campaign_id: null,
    mailerlite_campaign_status: null,
    cover_image: input.coverImage || null,
    cover_alt: input.coverImage ? input.coverAlt || null : null,
    scheduled_at: null,
    preview_key: null,
    author_name: null,
  };
  const slug = await ctx.db.transaction().execute(async (trx) => {
    const chosen = await claimSlug(trx, ctx.tenantId, id, input.slug || slugFor(input.title), {
      exact: Boolean(input.slug),
    });
    await trx
      .insertInto("newsletters")
      .values({ ...row, slug: chosen })
      .execute();
    await recordSlug(trx, ctx.tenantId, id, chosen, now);
    if (input.tags) await setNewsletterTags(trx, ctx.tenantId, id, input.tags);
    return chosen;
  });
  return toNewsletter({
    ...row,
    slug,
    views: 0,
    comments: 0,
    render_version: 0,
    scheduled_send: 0,
  });
}

/** The cover must be one of the tenant's own uploads (checked, not trusted from the form). */
async function checkCover(ctx: TenantScope, input: NewsletterInput): Promise<void> {
  if (!input.coverImage) return;
  const found = await findImagesByUrl(ctx.db, ctx.tenantId, [input.coverImage]);
  if (!found.has(input.coverImage)) throw new CoverImageNotFoundError();
}

/**
 * The slug a newsletter gets: `wanted` when free (or already its own, now or before); else, for a
 * suggested slug, the first free `wanted-2`, `-3`…, and for one the writer typed, an error.
 */
async function claimSlug(
  db: Db,
  tenantId: string,
  newsletterId: string,
  wanted: string,
  options: { exact: boolean },
): Promise<string> {
  const holders = await db
    .selectFrom("newsletter_slugs")
    .select(["slug", "newsletter_id"])
    .where("tenant_id", "=", tenantId)
    .where("slug", "like", `${wanted}%`)
    .execute();
  const taken = new Map(holders.map((holder) => [holder.slug, holder.newsletter_id]));
  const free = (slug: string) => !taken.has(slug) || taken.get(slug) === newsletterId;
  if (options.exact) {
    if (!free(wanted)) throw new NewsletterSlugTakenError();
    return wanted;
  }
  return firstFreeSlug(wanted, (slug) => !free(slug));
}

/** Remembers a slug the newsletter has had (a second time changes nothing). */
async function recordSlug(
  db: Db,
  tenantId: string,
  newsletterId: string,
  slug: string,
  at: string,
) {
  await db
    .insertInto("newsletter_slugs")
    .values({ tenant_id: tenantId, slug, newsletter_id: newsletterId, created_at: at })
    .onConflict((conflict) => conflict.columns(["tenant_id", "slug"]).doNothing())
    .execute();
}

/** A post from another platform (server/newsletters/archive-imports.ts), ready to be stored. */
export interface ArchivedNewsletter {
  slug: string;
  title: string;
  excerpt: string;
  /** HTML, sanitised here as the editor's is */
  content: string;
  status: NewsletterStatus;
  /** when it first appeared there (ISO); also its creation time here */
  publishedAt: string | null;
  createdAt: string;
  authorId: string | null;
  authorName: string | null;
  tags: readonly Tag[];
  coverImage: string | null;
  coverAlt: string | null;
}

/**
 * Stores an imported post inside the caller's transaction, with its slug, tags and (published)
 * search words — the editor's path. The slug is the key: when the tenant already has, or had, a
 * newsletter at it, nothing is written and the answer is "slug-taken" (an import run again, or a
 * clash with a newsletter written here).
 */
export async function storeArchivedNewsletter(
  db: Db,
  tenantId: string,
  post: ArchivedNewsletter,
): Promise<{ id: string } | "slug-taken"> {
  const holder = await db
    .selectFrom("newsletter_slugs")
    .select("newsletter_id")
    .where("tenant_id", "=", tenantId)
    .where("slug", "=", post.slug)
    .executeTakeFirst();
  if (holder) return "slug-taken";
  const content = sanitizeNewsletterHtml(post.content);
  const id = randomUUID();
  const now = new Date().toISOString();
  await db
    .insertInto("newsletters")
    .values({
      id,
      tenant_id: tenantId,
      title: post.title,
      excerpt: post.excerpt,
      content,
      read_time: estimateReadTime(content),
      status: post.status,
      author_id: post.authorId,
      author_name: post.authorName,
      created_at: post.createdAt,
      updated_at: now,
      published_at: post.status === "published" ? (post.publishedAt ?? post.createdAt) : null,
      sent_at: null,
      campaign_id: null,
      send_status: null,
      mailerlite_campaign_id: null,
      mailerlite_campaign_status: null,
      slug: post.slug,
      cover_image: post.coverImage,
      cover_alt: post.coverImage ? post.coverAlt || null : null,
      scheduled_at: null,
      preview_key: null,
    })
    .execute();
  await recordSlug(db, tenantId, id, post.slug, now);
  if (post.tags.length > 0) await setNewsletterTags(db, tenantId, id, post.tags);
  if (post.status === "published") await syncSearchIndex(db, tenantId, id);
  return { id };
}

/**
 * Where an old address of a published newsletter now lives: its current slug, for a slug it had
 * before or for its id (the URLs before slugs). Null when neither names a published newsletter.
 */
export async function currentSlugFor(
  ctx: TenantScope,
  idOrOldSlug: string,
): Promise<string | null> {
  const row = await ctx.db
    .selectFrom("newsletters")
    .select("newsletters.slug")
    .where("newsletters.tenant_id", "=", ctx.tenantId)
    .where("newsletters.status", "=", "published")
    .where((eb) =>
      eb.or([
        eb("newsletters.id", "=", idOrOldSlug),
        eb(
          "newsletters.id",
          "in",
          eb
            .selectFrom("newsletter_slugs")
            .select("newsletter_id")
            .where("newsletter_slugs.tenant_id", "=", ctx.tenantId)
            .where("newsletter_slugs.slug", "=", idOrOldSlug),
        ),
      ]),
    )
    .executeTakeFirst();
  return row?.slug ?? null;
}

/** Any newsletter of the tenant, draft or published (staff view). */
export async function getNewsletter(ctx: TenantScope, id: string): Promise<Newsletter | null> {
  const row = await ctx.db
    .selectFrom("newsletters")
    .selectAll()
    .where("id", "=", id)
    .where("tenant_id", "=", ctx.tenantId)
    .executeTakeFirst();
  return row ? toNewsletter(row) : null;
}

/** A published newsletter of the tenant, or null (a draft or another tenant's is "not found"). */
export async function getPublishedNewsletter(
  ctx: TenantScope,
  id: string,
): Promise<Newsletter | null> {
  return publishedWhere(ctx, "id", id);
}

/** The published newsletter at /newsletter/{slug}, or null. */
export async function getPublishedNewsletterBySlug(
  ctx: TenantScope,
  slug: string,
): Promise<Newsletter | null> {
  return publishedWhere(ctx, "slug", slug);
}

// A newsletter's page reads it by slug on every render.
const publishedBy = {
  id: publishedQuery("id"),
  slug: publishedQuery("slug"),
};

function publishedQuery(column: "id" | "slug") {
  return preparedQuery<"value" | "tenant", NewsletterRow>((db, value) =>
    db
      .selectFrom("newsletters")
      .selectAll()
      .where(column, "=", value("value"))
      .where("tenant_id", "=", value("tenant"))
      .where("status", "=", "published"),
  );
}

async function publishedWhere(
  ctx: TenantScope,
  column: "id" | "slug",
  value: string,
): Promise<Newsletter | null> {
  const [row] = await publishedBy[column](ctx.db, { value, tenant: ctx.tenantId });
  return row ? toNewsletter(row) : null;
}

/** The columns a form save writes; content is sanitised on the way in. */
function editableFields(input: NewsletterInput) {
  const content = sanitizeNewsletterHtml(input.content);
  return {
    title: input.title,
    excerpt: input.excerpt,
    content,
    read_time: input.readTime ?? estimateReadTime(content),
    updated_at: new Date().toISOString(),
    // A form without the cover fields (the API) leaves the cover as it is.
    ...(input.coverImage === undefined
      ? {}
      : {
          cover_image: input.coverImage || null,
          cover_alt: input.coverImage ? input.coverAlt || null : null,
        }),
  };
}

export async function updateNewsletter(
  ctx: TenantScope,
  id: string,
  input: NewsletterInput,
): Promise<Newsletter> {
  await checkCover(ctx, input);
  await ctx.db.transaction().execute(async (trx) => {
    const fields = editableFields(input);
    const slug = input.slug
      ? await claimSlug(trx, ctx.tenantId, id, input.slug, { exact: true })
      : undefined;
    const result = await trx
      .updateTable("newsletters")
      .set(slug ? { ...fields, slug } : fields)
      .where("id", "=", id)
      .where("tenant_id", "=", ctx.tenantId)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) throw new NewsletterNotFoundError(id);
    // The old slug stays in newsletter_slugs: links to it answer 301 to the new one.
    if (slug) await recordSlug(trx, ctx.tenantId, id, slug, fields.updated_at);
    if (input.tags) await setNewsletterTags(trx, ctx.tenantId, id, input.tags);
    await syncSearchIndex(trx, ctx.tenantId, id);
  });
  return (await getNewsletter(ctx, id)) as Newsletter;
}

/**
 * The editor's autosave: stores the input only while the newsletter is a draft, checked in the same
 * statement, so a half-typed edit never goes live on a published newsletter.
 */
export async function autosaveNewsletterDraft(
  ctx: TenantScope,
  id: string,
  input: NewsletterInput,
): Promise<"saved" | "not-draft"> {
  await checkCover(ctx, input);
  const saved = await ctx.db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable("newsletters")
      .set(editableFields(input))
      .where("id", "=", id)
      .where("tenant_id", "=", ctx.tenantId)
      .where("status", "=", "draft")
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return false;
    if (input.tags) await setNewsletterTags(trx, ctx.tenantId, id, input.tags);
    return true;
  });
  if (saved) return "saved";
  if (await getNewsletter(ctx, id)) return "not-draft";
  throw new NewsletterNotFoundError(id);
}

/** SPEC §4: publishing sets status published and publishedAt (kept from the first publication). */
export async function publishNewsletter(ctx: TenantScope, id: string): Promise<void> {
  const now = new Date().toISOString();
  await ctx.db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable("newsletters")
      .set({
        status: "published",
        published_at: sql<string>`coalesce(published_at, ${now})`,
        updated_at: now,
        // Published by hand: a schedule it had is done with.
        scheduled_at: null,
        scheduled_send: 0,
        // Share links were for the draft (issue 32, finding 16): they die with it, and stay dead
        // when it is unpublished again.
        preview_key: null,
      })
      .where("id", "=", id)
      .where("tenant_id", "=", ctx.tenantId)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) throw new NewsletterNotFoundError(id);
    await syncSearchIndex(trx, ctx.tenantId, id);
  });
}

export const SCHEDULE_MESSAGES = {
  past: "Choose a time in the future",
  tooFar: "Choose a time within the next year",
  notDraft: "Only a draft can be scheduled: this newsletter is already published",
} as const;

/** A schedule that cannot be kept (a time gone by, a newsletter already out). */
export class ScheduleError extends Error {}

/**
 * Part 5: the draft publishes itself at `at` (UTC), and is then sent as email too when `send` is
 * set. Checked against the row in the same statement, so a published newsletter is never scheduled.
 */
export async function scheduleNewsletter(
  ctx: TenantScope,
  id: string,
  schedule: { at: string; send: boolean },
  now = new Date(),
): Promise<void> {
  const at = new Date(schedule.at);
  if (Number.isNaN(at.getTime()) || at.getTime() <= now.getTime()) {
    throw new ScheduleError(SCHEDULE_MESSAGES.past);
  }
  if (at.getTime() > now.getTime() + 366 * 86_400_000) {
    throw new ScheduleError(SCHEDULE_MESSAGES.tooFar);
  }
  const result = await ctx.db
    .updateTable("newsletters")
    .set({ scheduled_at: at.toISOString(), scheduled_send: schedule.send ? 1 : 0 })
    .where("id", "=", id)
    .where("tenant_id", "=", ctx.tenantId)
    .where("status", "=", "draft")
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) > 0) return;
  if (await getNewsletter(ctx, id)) throw new ScheduleError(SCHEDULE_MESSAGES.notDraft);
  throw new NewsletterNotFoundError(id);
}

export async function unscheduleNewsletter(ctx: TenantScope, id: string): Promise<void> {
  const result = await ctx.db
    .updateTable("newsletters")
    .set({ scheduled_at: null, scheduled_send: 0 })
    .where("id", "=", id)
    .where("tenant_id", "=", ctx.tenantId)
    .where("status", "=", "draft")
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0 && !(await getNewsletter(ctx, id))) {
    throw new NewsletterNotFoundError(id);
  }
}

/**
 * The scheduler's publication of a due draft: one statement claims and publishes it, so of several
 * workers exactly one does. True when this call published it. A newsletter to be sent keeps
 * scheduled_send = 1 until its campaign exists (claimScheduledSend).
 */
export async function publishScheduledNewsletter(
  db: Db,
  tenantId: string,
  id: string,
  now: string,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable("newsletters")
      .set({
        status: "published",
        published_at: sql<string>`coalesce(published_at, scheduled_at)`,
        scheduled_at: null,
        updated_at: now,
        preview_key: null,
      })
      .where("id", "=", id)
      .where("tenant_id", "=", tenantId)
      .where("status", "=", "draft")
      .where("scheduled_at", "<=", now)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return false;
    await syncSearchIndex(trx, tenantId, id);
    return true;
  });
}

/**
 * Claims a published newsletter's scheduled send, inside the transaction that creates its campaign:
 * the claim and the campaign commit together or not at all.
 */
export async function claimScheduledSend(db: Db, tenantId: string, id: string): Promise<boolean> {
  const result = await db
    .updateTable("newsletters")
    .set({ scheduled_send: 0 })
    .where("id", "=", id)
    .where("tenant_id", "=", tenantId)
    .where("status", "=", "published")
    .where("scheduled_send", "=", 1)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** A scheduled send that cannot be made (no list, a bad sender): recorded, not retried forever. */
export async function failScheduledSend(db: Db, tenantId: string, id: string): Promise<void> {
  await db
    .updateTable("newsletters")
    .set({ scheduled_send: 0, send_status: "failed" })
    .where("id", "=", id)
    .where("tenant_id", "=", tenantId)
    .execute();
}

/**
 * The key that signs the newsletter's shareable preview links (previews.ts), made on first use;
 * null when there is no such newsletter.
 */
export async function previewKeyFor(ctx: TenantScope, id: string): Promise<string | null> {
  await ctx.db
    .updateTable("newsletters")
    .set({ preview_key: randomBytes(24).toString("base64url") })
    .where("id", "=", id)
    .where("tenant_id", "=", ctx.tenantId)
    .where("preview_key", "is", null)
    .execute();
  const row = await ctx.db
    .selectFrom("newsletters")
    .select("preview_key")
    .where("id", "=", id)
    .where("tenant_id", "=", ctx.tenantId)
    .executeTakeFirst();
  return row?.preview_key ?? null;
}

/** Every preview link given out for the newsletter stops working (the next one gets a new key). */
export async function revokePreviewKey(ctx: TenantScope, id: string): Promise<void> {
  const result = await ctx.db
    .updateTable("newsletters")
    .set({ preview_key: null })
    .where("id", "=", id)
    .where("tenant_id", "=", ctx.tenantId)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw new NewsletterNotFoundError(id);
}

export async function unpublishNewsletter(ctx: TenantScope, id: string): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable("newsletters")
      .set({ status: "draft", updated_at: new Date().toISOString(), scheduled_send: 0 })
      .where("id", "=", id)
      .where("tenant_id", "=", ctx.tenantId)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) throw new NewsletterNotFoundError(id);
    await syncSearchIndex(trx, ctx.tenantId, id);
  });
}

export async function deleteNewsletter(ctx: TenantScope, id: string): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const result = await trx
      .deleteFrom("newsletters")
      .where("id", "=", id)
      .where("tenant_id", "=", ctx.tenantId)
      .executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) throw new NewsletterNotFoundError(id);
    // Its tag links went with it (cascade); a tag only it carried goes too.
    await removeUnusedTags(trx, ctx.tenantId);
  });
}

export interface NewsletterFilter {
  status?: NewsletterStatus;
  search?: string;
}

/** How many newsletter cards a staff page shows at once. */
export const STAFF_PAGE_SIZE = 24;

/**
 * The tenant's newsletters for staff, newest change first, one page at a time (page 1 is the
 * first), and how many match in all: a tenant with years of issues must not render them all.
 */
export async function listNewsletters(
  ctx: TenantScope,
  filter: NewsletterFilter = {},
  page: { page: number; pageSize: number } = { page: 1, pageSize: STAFF_PAGE_SIZE },
): Promise<{ items: NewsletterSummary[]; total: number }> {
  const search = filter.search?.trim();
  if (!filter.status && !search) {
    // The dashboard as it opens: the same two queries on every load, prepared once.
    const [items, counted] = await Promise.all([
      staffPage(ctx.db, {
        tenant: ctx.tenantId,
        limit: page.pageSize,
        offset: (page.page - 1) * page.pageSize,
      }),
      staffCount(ctx.db, { tenant: ctx.tenantId }),
    ]);
    return { items: items.map(toSummary), total: Number(counted[0]?.total ?? 0) };
  }
  let base = ctx.db.selectFrom("newsletters").where("tenant_id", "=", ctx.tenantId);
  if (filter.status) base = base.where("status", "=", filter.status);
  if (search) {
    const pattern = `%${search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    base = base.where(sql<boolean>`lower(title) like ${pattern} escape '\\'`);
  }
  const { rows, total } = newestFirstPage(base, "updated_at", page);
  const [items, count] = await Promise.all([rows.select(SUMMARY_COLUMNS).execute(), total]);
  return { items: items.map(toSummary), total: count };
}

/** `base` as one page, newest first by `newest`, for the caller's columns; and how many in all. */
function newestFirstPage(
  base: SelectQueryBuilder<Database, "newsletters", object>,
  newest: "updated_at" | "published_at",
  page: { page: number; pageSize: number },
) {
  return {
    rows: newestFirst(base, newest, page.pageSize, (page.page - 1) * page.pageSize),
    total: countOf(base)
      .executeTakeFirst()
      .then((counted) => Number(counted?.total ?? 0)),
  };
}

function newestFirst(
  base: SelectQueryBuilder<Database, "newsletters", object>,
  newest: "updated_at" | "published_at",
  limit: number,
  offset: number,
) {
  return base.orderBy(newest, "desc").orderBy("id", "desc").limit(limit).offset(offset);
}

function countOf(base: SelectQueryBuilder<Database, "newsletters", object>) {
  return base.select((eb) => eb.fn.countAll<number>().as("total"));
}

const staffPage = preparedQuery<"tenant" | "limit" | "offset", SummaryRow>((db, value) =>
  newestFirst(
    db.selectFrom("newsletters").where("tenant_id", "=", value("tenant")),
    "updated_at",
    value("limit"),
    value("offset"),
  ).select(SUMMARY_COLUMNS),
);

const staffCount = preparedQuery<"tenant", { total: number }>((db, value) =>
  countOf(db.selectFrom("newsletters").where("tenant_id", "=", value("tenant"))),
);

/** Published newsletters, newest first, one page at a time: all, or those of a tag or a year. */
export async function listPublishedNewsletters(
  ctx: TenantScope,
  page: { page: number; pageSize: number; tag?: string; year?: number },
): Promise<{ items: NewsletterListItem[]; total: number }> {
  let base = ctx.db
    .selectFrom("newsletters")
    .where("tenant_id", "=", ctx.tenantId)
    .where("status", "=", "published");
  if (page.tag !== undefined) {
    const tag = page.tag;
    base = base.where("id", "in", (eb) =>
      eb
        .selectFrom("newsletter_tags")
        .select("newsletter_id")
        .where("newsletter_tags.tenant_id", "=", ctx.tenantId)
        .where("newsletter_tags.tag_slug", "=", tag),
    );
  }
  if (page.year !== undefined) {
    // ISO strings order as times do: the year is a range, so the index on published_at serves it.
    base = base
      .where("published_at", ">=", `${String(page.year).padStart(4, "0")}-01-01`)
      .where("published_at", "<", `${String(page.year + 1).padStart(4, "0")}-01-01`);
  }
  const { rows, total } = newestFirstPage(base, "published_at", page);
  const [items, count] = await Promise.all([rows.select(LIST_COLUMNS).execute(), total]);
  return { items: items.map(toListItem), total: count };
}

/** The years with published newsletters, newest first, with how many each has. */
export async function listPublishedYears(
  ctx: TenantScope,
): Promise<{ year: number; count: number }[]> {
  const year = sql<string>`substr(published_at, 1, 4)`;
  const rows = await ctx.db
    .selectFrom("newsletters")
    .select([year.as("year"), (eb) => eb.fn.countAll<number>().as("count")])
    .where("tenant_id", "=", ctx.tenantId)
    .where("status", "=", "published")
    .groupBy(year)
    .orderBy(year, "desc")
    .execute();
  return rows.map((row) => ({ year: Number(row.year), count: Number(row.count) }));
}

/**
 * Counts one view of a published newsletter of the tenant (a single atomic increment, so
 * concurrent views are all counted) and reads it, views included, in one statement (the page's reading runs it on every load), with its page version (as
 * countNewsletterView's); null when there is none to count.
 */
export async function viewPublishedNewsletter(
  ctx: TenantScope,
  slug: string,
): Promise<{ newsletter: Newsletter; version: string } | null> {
  const [row] = await viewBySlug(ctx.db, { slug, tenant: ctx.tenantId });
  return row ? { newsletter: toNewsletter(row), version: pageVersion(row) } : null;
}

/** What changes whenever the public page does: the newsletter, or its comments (render_version). */
function pageVersion(row: Pick<NewsletterRow, "updated_at" | "render_version">): string {
  return `${row.updated_at}#${row.render_version}`;
}

const viewBySlug = preparedQuery<"slug" | "tenant", NewsletterRow>((db, value) =>
  db
    .updateTable("newsletters")
    .set({ views: sql<number>`views + 1` })
    .where("slug", "=", value("slug"))
    .where("tenant_id", "=", value("tenant"))
    .where("status", "=", "published")
    .returningAll(),
);

/**
 * SPEC §3/§4 for a campaign MailerLite sends: the newsletter remembers MailerLite's campaign id and
 * status; sending now also sets sentAt and sendStatus.
 */
export async function recordProviderCampaign(
  db: Db,
  tenantId: string,
  newsletterId: string,
  campaign: { id: string; status: string },
  mode: "now" | "schedule" | "draft",
): Promise<void> {
  await db
    .updateTable("newsletters")
    .set({
      mailerlite_campaign_id: campaign.id,
      mailerlite_campaign_status: campaign.status,
      send_status: mode === "now" ? "sent" : mode === "schedule" ? "scheduled" : "draft",
      ...(mode === "now" ? { sent_at: new Date().toISOString() } : {}),
    })
    .where("tenant_id", "=", tenantId)
    .where("id", "=", newsletterId)
    .execute();
}

// The counters and send state below are written here only, whichever module's event moves them
// (a view, a comment, a campaign): `newsletters` has one writer (issue 13, point 3).

/** Counts one view of a published newsletter of the tenant; null when there is none to count. */
export async function countNewsletterView(
  db: Db,
  tenantId: string,
  slug: string,
): Promise<{ views: number; version: string } | null> {
  const [row] = await countViewBySlug(db, { slug, tenant: tenantId });
  if (!row) return null;
  return { views: Number(row.views), version: pageVersion(row) };
}

// Every view of a newsletter page runs it, cached page or not.
const countViewBySlug = preparedQuery<
  "slug" | "tenant",
  Pick<NewsletterRow, "views" | "updated_at" | "render_version">
>((db, value) =>
  db
    .updateTable("newsletters")
    .set({ views: sql<number>`views + 1` })
    .where("slug", "=", value("slug"))
    .where("tenant_id", "=", value("tenant"))
    .where("status", "=", "published")
    .returning(["views", "updated_at", "render_version"]),
);

/** The number of visible comments went up or down by one; false when no such newsletter. */
export async function countNewsletterComment(
  db: Db,
  tenantId: string,
  newsletterId: string,
  change: 1 | -1,
  options: { publishedOnly?: boolean } = {},
): Promise<boolean> {
  let query = db
    .updateTable("newsletters")
    .set({
      // portable `greatest(comments - 1, 0)`: the counter never goes below zero
      comments:
        change > 0
          ? sql<number>`comments + 1`
          : sql<number>`case when comments > 0 then comments - 1 else 0 end`,
      // the page shows the count: its cached render is stale
      render_version: sql<number>`render_version + 1`,
    })
    .where("tenant_id", "=", tenantId)
    .where("id", "=", newsletterId);
  if (options.publishedOnly) query = query.where("status", "=", "published");
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** SPEC §4: the newsletter's campaign and send status as its campaign starts and ends. */
export async function setNewsletterSendState(
  db: Db,
  tenantId: string,
  newsletterId: string,
  state:
    | { campaignId: string; status: "sending" }
    | { campaignId: string; status: "sent" | "failed"; sentAt: string },
): Promise<void> {
  await db
    .updateTable("newsletters")
    .set({
      campaign_id: state.campaignId,
      send_status: state.status,
      ...("sentAt" in state ? { sent_at: state.sentAt } : {}),
    })
    .where("tenant_id", "=", tenantId)
    .where("id", "=", newsletterId)
    .execute();
}
