import { randomUUID } from "node:crypto";
import type { Db } from "../db";
import type { NewsletterStatus } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import type { TenantScope } from "../scope";
import { NewsletterNotFoundError } from "./errors";
import { getNewsletter } from "./listing";
import { type Newsletter, toNewsletter } from "./model";
import { checkCover, estimateReadTime, type NewsletterInput } from "./newsletter-form";
import { insertNewsletter, writeNewsletterFields } from "./newsletters";
import { sanitizeNewsletterHtml } from "./sanitize";
import { syncSearchIndex } from "./search";
import { claimSlug, recordSlug, slugFor } from "./slugs";
import { setNewsletterTags, type Tag } from "./tags";

/*
 * What a newsletter says: the editor's drafts, saves and autosaves, and posts imported from another
 * platform, each with its slug, tags and search words in the same transaction. The rows themselves
 * are written by newsletters.ts, the one writer of `newsletters`.
 */

/** Creates a draft. Content is sanitised before it is stored. */
export async function createNewsletter(
  ctx: TenantScope & { authorId: string | null },
  input: NewsletterInput,
): Promise<Newsletter> {
  const now = new Date().toISOString();
  const content = sanitizeNewsletterHtml(input.content);
  const id = randomUUID();
  await checkCover(ctx, input);
  const created = await ctx.db.transaction().execute(async (trx) => {
    const slug = await claimSlug(trx, ctx.tenantId, id, input.slug || slugFor(input.title), {
      exact: Boolean(input.slug),
    });
    const row = await insertNewsletter(trx, {
      id,
      tenant_id: ctx.tenantId,
      title: input.title,
      excerpt: input.excerpt,
      content,
      read_time: input.readTime ?? estimateReadTime(content),
      status: "draft",
      author_id: ctx.authorId,
      author_name: null,
      created_at: now,
      updated_at: now,
      published_at: null,
      slug,
      cover_image: input.coverImage || null,
      cover_alt: input.coverImage ? input.coverAlt || null : null,
    });
    await recordSlug(trx, ctx.tenantId, id, slug, now);
    if (input.tags) await setNewsletterTags(trx, ctx.tenantId, id, input.tags);
    return row;
  });
  return toNewsletter(created);
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
  root: Db,
  tenantId: string,
  post: ArchivedNewsletter,
): Promise<{ id: string } | "slug-taken"> {
  const db = tenantDb(root, tenantId);
  const holder = await db
    .selectFrom("newsletter_slugs")
    .select("newsletter_id")
    .where("slug", "=", post.slug)
    .executeTakeFirst();
  if (holder) return "slug-taken";
  const content = sanitizeNewsletterHtml(post.content);
  const id = randomUUID();
  const now = new Date().toISOString();
  await insertNewsletter(db, {
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
    slug: post.slug,
    cover_image: post.coverImage,
    cover_alt: post.coverImage ? post.coverAlt || null : null,
  });
  await recordSlug(db, tenantId, id, post.slug, now);
  if (post.tags.length > 0) await setNewsletterTags(db, tenantId, id, post.tags);
  if (post.status === "published") await syncSearchIndex(db, tenantId, id);
  return { id };
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
    const saved = await writeNewsletterFields(
      trx,
      ctx.tenantId,
      id,
      slug ? { ...fields, slug } : fields,
    );
    if (!saved) throw new NewsletterNotFoundError(id);
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
    const written = await writeNewsletterFields(trx, ctx.tenantId, id, editableFields(input), {
      draftOnly: true,
    });
    if (!written) return false;
    if (input.tags) await setNewsletterTags(trx, ctx.tenantId, id, input.tags);
    return true;
  });
  if (saved) return "saved";
  if (await getNewsletter(ctx, id)) return "not-draft";
  throw new NewsletterNotFoundError(id);
}
