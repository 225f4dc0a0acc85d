import { randomBytes } from "node:crypto";
import { sql, type Updateable } from "kysely";
import type { Db } from "../db";
import { preparedQuery } from "../db/prepared";
import type { NewsletterRow, NewslettersTable } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import type { TenantScope } from "../scope";
import { NewsletterNotFoundError, SCHEDULE_MESSAGES, ScheduleError } from "./errors";
import { getNewsletter } from "./listing";
import { type Newsletter, toNewsletter } from "./model";
import { syncSearchIndex } from "./search";
import { removeUnusedTags } from "./tags";

/*
 * The one writer of `newsletters` (issue 13, point 3): a newsletter's row is inserted, saved,
 * published, scheduled, unpublished and deleted here, and its counters and send state are moved
 * here whichever module's event moves them. The rules around the writes are in editing.ts (what
 * it says), newsletter-form.ts (the form), slugs.ts and tags.ts; reads are in listing.ts.
 */

/** What a new newsletter is given; the rest starts empty (not sent, scheduled or shared). */
export type NewNewsletter = Omit<
  NewsletterRow,
  | "views"
  | "comments"
  | "render_version"
  | "sent_at"
  | "campaign_id"
  | "send_status"
  | "mailerlite_campaign_id"
  | "mailerlite_campaign_status"
  | "scheduled_at"
  | "scheduled_send"
  | "preview_key"
>;

/** Stores a new newsletter's row (content sanitised and slug claimed by the caller). */
export async function insertNewsletter(db: Db, fields: NewNewsletter): Promise<NewsletterRow> {
  const row = {
    ...fields,
    sent_at: null,
    campaign_id: null,
    send_status: null,
    mailerlite_campaign_id: null,
    mailerlite_campaign_status: null,
    scheduled_at: null,
    preview_key: null,
  };
  await db.insertInto("newsletters").values(row).execute();
  return { ...row, views: 0, comments: 0, render_version: 0, scheduled_send: 0 };
}

/** What a save changes: its text, read time and cover, and a slug it chose. */
export type NewsletterFields = Pick<
  Updateable<NewslettersTable>,
  | "title"
  | "excerpt"
  | "content"
  | "read_time"
  | "updated_at"
  | "cover_image"
  | "cover_alt"
  | "slug"
>;

/** Writes a save (only to a draft, with `draftOnly`); false when there is no such newsletter. */
export async function writeNewsletterFields(
  root: Db,
  tenantId: string,
  id: string,
  fields: NewsletterFields,
  options: { draftOnly?: boolean } = {},
): Promise<boolean> {
  let query = tenantDb(root, tenantId).updateTable("newsletters").set(fields).where("id", "=", id);
  if (options.draftOnly) query = query.where("status", "=", "draft");
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** SPEC §4: publishing sets status published and publishedAt (kept from the first publication). */
export async function publishNewsletter(ctx: TenantScope, id: string): Promise<void> {
  const now = new Date().toISOString();
  const db = tenantDb(ctx.db, ctx.tenantId);
  await db.transaction().execute(async (trx) => {
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
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) throw new NewsletterNotFoundError(id);
    await syncSearchIndex(trx, ctx.tenantId, id);
  });
}

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
  const result = await tenantDb(ctx.db, ctx.tenantId)
    .updateTable("newsletters")
    .set({ scheduled_at: at.toISOString(), scheduled_send: schedule.send ? 1 : 0 })
    .where("id", "=", id)
    .where("status", "=", "draft")
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) > 0) return;
  if (await getNewsletter(ctx, id)) throw new ScheduleError(SCHEDULE_MESSAGES.notDraft);
  throw new NewsletterNotFoundError(id);
}

export async function unscheduleNewsletter(ctx: TenantScope, id: string): Promise<void> {
  const result = await tenantDb(ctx.db, ctx.tenantId)
    .updateTable("newsletters")
    .set({ scheduled_at: null, scheduled_send: 0 })
    .where("id", "=", id)
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
  root: Db,
  tenantId: string,
  id: string,
  now: string,
): Promise<boolean> {
  const db = tenantDb(root, tenantId);
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
export async function claimScheduledSend(root: Db, tenantId: string, id: string): Promise<boolean> {
  const result = await tenantDb(root, tenantId)
    .updateTable("newsletters")
    .set({ scheduled_send: 0 })
    .where("id", "=", id)
    .where("status", "=", "published")
    .where("scheduled_send", "=", 1)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** A scheduled send that cannot be made (no list, a bad sender): recorded, not retried forever. */
export async function failScheduledSend(root: Db, tenantId: string, id: string): Promise<void> {
  await tenantDb(root, tenantId)
    .updateTable("newsletters")
    .set({ scheduled_send: 0, send_status: "failed" })
    .where("id", "=", id)
    .execute();
}

/**
 * The key that signs the newsletter's shareable preview links (previews.ts), made on first use;
 * null when there is no such newsletter.
 */
export async function previewKeyFor(ctx: TenantScope, id: string): Promise<string | null> {
  const db = tenantDb(ctx.db, ctx.tenantId);
  await db
    .updateTable("newsletters")
    .set({ preview_key: randomBytes(24).toString("base64url") })
    .where("id", "=", id)
    .where("preview_key", "is", null)
    .execute();
  const row = await db
    .selectFrom("newsletters")
    .select("preview_key")
    .where("id", "=", id)
    .executeTakeFirst();
  return row?.preview_key ?? null;
}

/** Every preview link given out for the newsletter stops working (the next one gets a new key). */
export async function revokePreviewKey(ctx: TenantScope, id: string): Promise<void> {
  const result = await tenantDb(ctx.db, ctx.tenantId)
    .updateTable("newsletters")
    .set({ preview_key: null })
    .where("id", "=", id)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw new NewsletterNotFoundError(id);
}

export async function unpublishNewsletter(ctx: TenantScope, id: string): Promise<void> {
  const db = tenantDb(ctx.db, ctx.tenantId);
  await db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable("newsletters")
      .set({ status: "draft", updated_at: new Date().toISOString(), scheduled_send: 0 })
      .where("id", "=", id)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) throw new NewsletterNotFoundError(id);
    await syncSearchIndex(trx, ctx.tenantId, id);
  });
}

export async function deleteNewsletter(ctx: TenantScope, id: string): Promise<void> {
  const db = tenantDb(ctx.db, ctx.tenantId);
  await db.transaction().execute(async (trx) => {
    const result = await trx.deleteFrom("newsletters").where("id", "=", id).executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) throw new NewsletterNotFoundError(id);
    // Its tag links went with it (cascade); a tag only it carried goes too.
    await removeUnusedTags(trx, ctx.tenantId);
  });
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
  const [row] = await viewBySlug(tenantDb(ctx.db, ctx.tenantId), { slug });
  return row ? { newsletter: toNewsletter(row), version: pageVersion(row) } : null;
}

/** What changes whenever the public page does: the newsletter, or its comments (render_version). */
function pageVersion(row: Pick<NewsletterRow, "updated_at" | "render_version">): string {
  return `${row.updated_at}#${row.render_version}`;
}

// Compiled once per tenant's database: the binding names the tenant.
const viewBySlug = preparedQuery<"slug", NewsletterRow>((db, value) =>
  db
    .updateTable("newsletters")
    .set({ views: sql<number>`views + 1` })
    .where("slug", "=", value("slug"))
    .where("status", "=", "published")
    .returningAll(),
);

/**
 * SPEC §3/§4 for a campaign MailerLite sends: the newsletter remembers MailerLite's campaign id and
 * status; sending now also sets sentAt and sendStatus.
 */
export async function recordProviderCampaign(
  root: Db,
  tenantId: string,
  newsletterId: string,
  campaign: { id: string; status: string },
  mode: "now" | "schedule" | "draft",
): Promise<void> {
  await tenantDb(root, tenantId)
    .updateTable("newsletters")
    .set({
      mailerlite_campaign_id: campaign.id,
      mailerlite_campaign_status: campaign.status,
      send_status: mode === "now" ? "sent" : mode === "schedule" ? "scheduled" : "draft",
      ...(mode === "now" ? { sent_at: new Date().toISOString() } : {}),
    })
    .where("id", "=", newsletterId)
    .execute();
}

// The counters and send state below are written here only, whichever module's event moves them
// (a view, a comment, a campaign): `newsletters` has one writer (issue 13, point 3).

/** Counts one view of a published newsletter of the tenant; null when there is none to count. */
export async function countNewsletterView(
  root: Db,
  tenantId: string,
  slug: string,
): Promise<{ id: string; views: number; version: string } | null> {
  const [row] = await countViewBySlug(tenantDb(root, tenantId), { slug });
  if (!row) return null;
  return { id: row.id, views: Number(row.views), version: pageVersion(row) };
}

// Every view of a newsletter page runs it, cached page or not.
const countViewBySlug = preparedQuery<
  "slug",
  Pick<NewsletterRow, "id" | "views" | "updated_at" | "render_version">
>((db, value) =>
  db
    .updateTable("newsletters")
    .set({ views: sql<number>`views + 1` })
    .where("slug", "=", value("slug"))
    .where("status", "=", "published")
    .returning(["id", "views", "updated_at", "render_version"]),
);

/** The number of visible comments went up or down by one; false when no such newsletter. */
export async function countNewsletterComment(
  root: Db,
  tenantId: string,
  newsletterId: string,
  change: 1 | -1,
  options: { publishedOnly?: boolean } = {},
): Promise<boolean> {
  let query = tenantDb(root, tenantId)
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
    .where("id", "=", newsletterId);
  if (options.publishedOnly) query = query.where("status", "=", "published");
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** SPEC §4: the newsletter's campaign and send status as its campaign starts and ends. */
export async function setNewsletterSendState(
  root: Db,
  tenantId: string,
  newsletterId: string,
  state:
    | { campaignId: string; status: "sending" }
    | { campaignId: string; status: "sent" | "failed"; sentAt: string },
): Promise<void> {
  await tenantDb(root, tenantId)
    .updateTable("newsletters")
    .set({
      campaign_id: state.campaignId,
      send_status: state.status,
      ...("sentAt" in state ? { sent_at: state.sentAt } : {}),
    })
    .where("id", "=", newsletterId)
    .execute();
}
