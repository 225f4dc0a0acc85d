import { z } from "zod";
import { commentTextSchema } from "../../shared/schemas/comment";
import { preparedQuery } from "../db/prepared";
import type { CommentRow } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import { createRateLimit } from "../http/rate-limit";
import type { TenantScope } from "../scope";
import { countNewsletterComment } from "./newsletters";

/**
 * Anonymous comments on published newsletters (SPEC §3 Comment, §5; DESIGN.md §7.8).
 * `newsletters.comments` counts what the public sees: adding a comment or unhiding one adds one,
 * hiding or deleting a visible one takes one away, always in the same transaction as the change.
 */
export const ANONYMOUS_AUTHOR = "Anonymous";

/**
 * Ten comments a minute per address and tenant: more than a person types, and an office behind one
 * address can still hold a conversation. A spam run stops after ten.
 */
export const commentRateLimit = createRateLimit({
  name: "comments",
  points: 10,
  windowSeconds: 60,
});
export const COMMENT_RATE_LIMITED =
  "You are commenting too quickly. Please wait a minute and try again.";

export const commentInputSchema = z.object({
  newsletterId: z.string().min(1).max(64),
  text: commentTextSchema,
});

export type CommentInput = z.input<typeof commentInputSchema>;

/** What pages show of a comment (SPEC §3 field names). */
export interface Comment {
  id: number;
  newsletterId: string;
  text: string;
  author: string;
  /** ISO-8601 */
  date: string;
  hidden: boolean;
}

export function toComment(row: CommentRow): Comment {
  return {
    id: Number(row.id),
    newsletterId: row.newsletter_id,
    text: row.text,
    author: row.author,
    date: row.created_at,
    hidden: Number(row.hidden) === 1,
  };
}

export type AddCommentResult =
  | { status: "added"; comment: Comment }
  /** blank after trimming: silently ignored (SPEC §5) */
  | { status: "ignored" }
  /** unknown, draft or another tenant's newsletter */
  | { status: "not-found" };

/**
 * Stores an anonymous comment on a published newsletter of this tenant and counts it, in one
 * transaction. The counter's update comes first: it proves the newsletter is published and ours,
 * and on PostgreSQL it locks the row until the comment is in.
 */
export async function addComment(ctx: TenantScope, input: CommentInput): Promise<AddCommentResult> {
  const { newsletterId, text } = commentInputSchema.parse(input);
  if (text === "") return { status: "ignored" };
  return ctx.db.transaction().execute(async (trx) => {
    const counted = await countNewsletterComment(trx, ctx.tenantId, newsletterId, 1, {
      publishedOnly: true,
    });
    if (!counted) return { status: "not-found" } as const;
    const row = await trx
      .insertInto("comments")
      .values({
        newsletter_id: newsletterId,
        tenant_id: ctx.tenantId,
        text,
        author: ANONYMOUS_AUTHOR,
        hidden: 0,
        created_at: new Date().toISOString(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { status: "added", comment: toComment(row) } as const;
  });
}

/** A newsletter's comments, newest first; hidden ones only for staff. */
export async function listComments(
  ctx: TenantScope,
  newsletterId: string,
  options: { includeHidden?: boolean; limit?: number } = {},
): Promise<Comment[]> {
  const list = options.includeHidden ? commentsWithHidden : visibleComments;
  const rows = await list(tenantDb(ctx.db, ctx.tenantId), {
    newsletter: newsletterId,
    limit: options.limit ?? 500,
  });
  return rows.map(toComment);
}

// A newsletter's page lists its comments on every render.
const visibleComments = commentsQuery({ includeHidden: false });
const commentsWithHidden = commentsQuery({ includeHidden: true });

function commentsQuery(options: { includeHidden: boolean }) {
  // Compiled once per tenant's database, which adds the tenant's condition.
  return preparedQuery<"newsletter" | "limit", CommentRow>((db, value) => {
    let query = db
      .selectFrom("comments")
      .selectAll()
      .where("newsletter_id", "=", value("newsletter"));
    if (!options.includeHidden) query = query.where("hidden", "=", 0);
    return query.orderBy("created_at", "desc").orderBy("id", "desc").limit(value("limit"));
  });
}

/** The comments and the public comment count, as the page shows them after a comment is posted. */
export async function getCommentThread(
  ctx: TenantScope,
  newsletterId: string,
  options: { includeHidden?: boolean; limit?: number } = {},
): Promise<{ comments: Comment[]; count: number }> {
  const [comments, newsletter] = await Promise.all([
    listComments(ctx, newsletterId, options),
    tenantDb(ctx.db, ctx.tenantId)
      .selectFrom("newsletters")
      .select("comments")
      .where("id", "=", newsletterId)
      .executeTakeFirst(),
  ]);
  return { comments, count: Number(newsletter?.comments ?? 0) };
}

/**
 * Hides or shows a comment of this tenant. Only a real change moves the public counter, so hiding
 * twice (or two moderators at once) takes one away, not two. Resolves to false when the tenant has
 * no such comment.
 */
export async function setCommentHidden(
  ctx: TenantScope,
  commentId: number,
  hidden: boolean,
): Promise<boolean> {
  const db = tenantDb(ctx.db, ctx.tenantId);
  return db.transaction().execute(async (trx) => {
    const changed = await trx
      .updateTable("comments")
      .set({ hidden: hidden ? 1 : 0 })
      .where("id", "=", commentId)
      .where("hidden", "=", hidden ? 0 : 1)
      .returning("newsletter_id")
      .executeTakeFirst();
    if (changed) {
      await countNewsletterComment(trx, ctx.tenantId, changed.newsletter_id, hidden ? -1 : 1);
      return true;
    }
    const existing = await trx
      .selectFrom("comments")
      .select("id")
      .where("id", "=", commentId)
      .executeTakeFirst();
    return existing !== undefined;
  });
}

/** Deletes a comment of this tenant; a visible one is taken off the public counter. */
export async function deleteComment(ctx: TenantScope, commentId: number): Promise<boolean> {
  const db = tenantDb(ctx.db, ctx.tenantId);
  return db.transaction().execute(async (trx) => {
    const deleted = await trx
      .deleteFrom("comments")
      .where("id", "=", commentId)
      .returning(["newsletter_id", "hidden"])
      .executeTakeFirst();
    if (!deleted) return false;
    if (Number(deleted.hidden) === 0) {
      await countNewsletterComment(trx, ctx.tenantId, deleted.newsletter_id, -1);
    }
    return true;
  });
}
