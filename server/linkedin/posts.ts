import type { Db } from "../db";
import type { LinkedInPostState } from "../db/schema";
import { crossTenant, tenantDb } from "../db/tenant-guard";
import { getNewsletter } from "../newsletters/listing";
import type { TenantScope } from "../scope";
import { LINKEDIN_MESSAGES } from "./messages";

/*
 * A newsletter's LinkedIn post (docs/decisions/046-linkedin.md): the one writer of
 * linkedin_posts. States: scheduled (waits for `due_at` and for the newsletter to be published)
 * → uploading (claimed by one worker) → posted, or failed with LinkedIn's refusal in plain words;
 * a retryable refusal goes back to scheduled with a later `due_at`. Every write of a claimed row
 * names the worker that holds it, so a worker that lost its claim changes nothing.
 */

export class LinkedInPostError extends Error {}

/** How long ago a post's time may be (the form filled at 10:00 for 10:00, sent at 10:01). */
const PAST_SLACK_MS = 5 * 60_000;

export interface LinkedInPostView {
  id: number;
  newsletterId: string;
  title: string;
  state: LinkedInPostState;
  dueAt: string;
  postUrn: string | null;
  postedAt: string | null;
  error: string | null;
}

/** Staff ask for a post now or at a time; a failed or scheduled one is asked for again. */
export async function requestPost(
  ctx: TenantScope,
  request: { newsletterId: string; dueAt: Date; actor: string },
): Promise<void> {
  // A time gone by would post at once, not when staff meant: a few minutes' slack for the form.
  if (request.dueAt.getTime() < Date.now() - PAST_SLACK_MS) {
    throw new LinkedInPostError(LINKEDIN_MESSAGES.pastTime);
  }
  const newsletter = await getNewsletter(ctx, request.newsletterId);
  // A draft scheduled to publish may be posted beside it: the post waits for the publication.
  if (!newsletter || (newsletter.status !== "published" && !newsletter.scheduledAt)) {
    throw new LinkedInPostError(LINKEDIN_MESSAGES.notPublished);
  }
  const db = tenantDb(ctx.db, ctx.tenantId);
  const now = new Date().toISOString();
  await db.transaction().execute(async (trx) => {
    const existing = await trx
      .selectFrom("linkedin_posts")
      .select(["id", "state"])
      .where("newsletter_id", "=", request.newsletterId)
      .executeTakeFirst();
    if (existing?.state === "posted" || existing?.state === "uploading") {
      throw new LinkedInPostError(LINKEDIN_MESSAGES.alreadyPosted);
    }
    const values = {
      state: "scheduled" as const,
      due_at: request.dueAt.toISOString(),
      error: null,
      requested_by: request.actor,
      updated_at: now,
    };
    if (existing) {
      await trx.updateTable("linkedin_posts").set(values).where("id", "=", existing.id).execute();
    } else {
      await trx
        .insertInto("linkedin_posts")
        .values({
          tenant_id: ctx.tenantId,
          newsletter_id: request.newsletterId,
          created_at: now,
          ...values,
        })
        .execute();
    }
  });
}

/** A post that has not gone out is withdrawn. */
export async function cancelPost(ctx: TenantScope, id: number): Promise<boolean> {
  const result = await tenantDb(ctx.db, ctx.tenantId)
    .deleteFrom("linkedin_posts")
    .where("id", "=", id)
    .where("state", "in", ["scheduled", "failed"])
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function listPosts(ctx: TenantScope, limit = 50): Promise<LinkedInPostView[]> {
  const rows = await tenantDb(ctx.db, ctx.tenantId)
    .selectFrom("linkedin_posts")
    .innerJoin("newsletters", "newsletters.id", "linkedin_posts.newsletter_id")
    .select([
      "linkedin_posts.id",
      "linkedin_posts.newsletter_id",
      "newsletters.title",
      "linkedin_posts.state",
      "linkedin_posts.due_at",
      "linkedin_posts.post_urn",
      "linkedin_posts.posted_at",
      "linkedin_posts.error",
    ])
    .orderBy("linkedin_posts.id", "desc")
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    newsletterId: row.newsletter_id,
    title: row.title,
    state: row.state,
    dueAt: row.due_at,
    postUrn: row.post_urn,
    postedAt: row.posted_at,
    error: row.error,
  }));
}

export interface ClaimedPost {
  id: number;
  tenantId: string;
  newsletterId: string;
  attempts: number;
  imageUrn: string | null;
  postStartedAt: string | null;
}

/**
 * Claims due posts for `worker`: scheduled ones whose time came, and uploading ones whose worker
 * went silent before `staleBefore` (a crash). One conditional UPDATE per row: of several workers,
 * one wins each.
 */
export async function claimDuePosts(
  root: Db,
  worker: string,
  now: Date,
  staleBefore: Date,
  limit = 5,
): Promise<ClaimedPost[]> {
  const at = now.toISOString();
  const stale = staleBefore.toISOString();
  // Cross-tenant on purpose: the worker serves every tenant, then acts within each.
  const candidates = await crossTenant(root)
    .selectFrom("linkedin_posts")
    .select([
      "id",
      "tenant_id",
      "newsletter_id",
      "attempts",
      "image_urn",
      "post_started_at",
      "state",
      "claimed_at",
    ])
    .where((eb) =>
      eb.or([
        eb.and([eb("state", "=", "scheduled"), eb("due_at", "<=", at)]),
        eb.and([eb("state", "=", "uploading"), eb("claimed_at", "<", stale)]),
      ]),
    )
    .orderBy("due_at")
    .limit(limit)
    .execute();
  const claimed: ClaimedPost[] = [];
  for (const row of candidates) {
    let update = tenantDb(root, row.tenant_id)
      .updateTable("linkedin_posts")
      .set({
        state: "uploading",
        claimed_by: worker,
        claimed_at: at,
        attempts: row.attempts + 1,
        updated_at: at,
      })
      .where("id", "=", row.id)
      .where("state", "=", row.state);
    update =
      row.state === "uploading"
        ? update.where("claimed_at", "=", row.claimed_at)
        : update.where("due_at", "<=", at);
    const result = await update.executeTakeFirst();
    if (Number(result.numUpdatedRows) === 1) {
      claimed.push({
        id: row.id,
        tenantId: row.tenant_id,
        newsletterId: row.newsletter_id,
        attempts: row.attempts + 1,
        imageUrn: row.image_urn,
        postStartedAt: row.post_started_at,
      });
    }
  }
  return claimed;
}

/** Writes to a post this worker holds; false when it no longer does. */
async function updateClaimed(
  root: Db,
  post: Pick<ClaimedPost, "id" | "tenantId">,
  worker: string,
  values: Partial<{
    state: LinkedInPostState;
    due_at: string;
    image_urn: string;
    post_started_at: string;
    post_urn: string;
    posted_at: string;
    error: string | null;
    claimed_by: null;
    claimed_at: string | null;
  }>,
): Promise<boolean> {
  const at = new Date().toISOString();
  const result = await tenantDb(root, post.tenantId)
    .updateTable("linkedin_posts")
    .set({ ...values, updated_at: at })
    .where("id", "=", post.id)
    .where("claimed_by", "=", worker)
    .where("state", "=", "uploading")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Keeps the claim fresh between the steps of one post, so it does not look abandoned. */
export const renewPostClaim = (root: Db, post: ClaimedPost, worker: string) =>
  updateClaimed(root, post, worker, { claimed_at: new Date().toISOString() });

export const recordImage = (root: Db, post: ClaimedPost, worker: string, imageUrn: string) =>
  updateClaimed(root, post, worker, { image_urn: imageUrn, claimed_at: new Date().toISOString() });

/** The idempotency marker: written before the Posts API is called. */
export const recordPostStarted = (root: Db, post: ClaimedPost, worker: string) =>
  updateClaimed(root, post, worker, {
    post_started_at: new Date().toISOString(),
    claimed_at: new Date().toISOString(),
  });

export const recordPosted = (root: Db, post: ClaimedPost, worker: string, postUrn: string) =>
  updateClaimed(root, post, worker, {
    state: "posted",
    post_urn: postUrn,
    posted_at: new Date().toISOString(),
    error: null,
    claimed_by: null,
    claimed_at: null,
  });

/** Back to scheduled, tried again at `dueAt` (with what went wrong, if anything). */
export const postLater = (
  root: Db,
  post: ClaimedPost,
  worker: string,
  dueAt: Date,
  error: string | null,
) =>
  updateClaimed(root, post, worker, {
    state: "scheduled",
    due_at: dueAt.toISOString(),
    error,
    claimed_by: null,
    claimed_at: null,
  });

export const recordFailed = (root: Db, post: ClaimedPost, worker: string, error: string) =>
  updateClaimed(root, post, worker, { state: "failed", error, claimed_by: null, claimed_at: null });

/** What staff may post: published newsletters, and drafts scheduled to publish (the post waits). */
export async function postableNewsletters(ctx: TenantScope, limit = 50) {
  const rows = await tenantDb(ctx.db, ctx.tenantId)
    .selectFrom("newsletters")
    .select(["id", "title", "status", "scheduled_at", "published_at"])
    .where((eb) => eb.or([eb("status", "=", "published"), eb("scheduled_at", "is not", null)]))
    .orderBy("updated_at", "desc")
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    title: row.title,
    /** when a scheduled draft publishes: the default time of its post */
    scheduledAt: row.status === "published" ? null : row.scheduled_at,
  }));
}
