import { FEEDBACK_REASONS } from "../../shared/schemas/unsubscribe";
import { recordUnsubscribe } from "../campaigns/tracking";
import { tenantDb } from "../db/tenant-guard";
import { pushUnsubscribe } from "../providers/mailerlite-mirror";
import type { Scope } from "../scope";
import { MESSAGES, SubscriptionError } from "./errors";
import { recordEvent } from "./events";
import { markUnsubscribed, type SubscriberChunkWrite } from "./store";
import {
  findSubscriberRow,
  listKeysOfSubscriber,
  type SubscriberKey,
  type SubscriberView,
  type SubscriptionContext,
  toSubscriberView,
} from "./subscribers";

/*
 * Leaving (SPEC §5): the unsubscribe itself, and the feedback form's answer afterwards — kept,
 * counted for staff, and made anonymous when the subscriber is erased. The one writer of
 * `unsubscribe_feedback`.
 */

/** SPEC §5: the subscriber must exist and be active; afterwards they are on no list. */
export async function unsubscribe(
  ctx: SubscriptionContext,
  who: SubscriberKey,
): Promise<SubscriberView> {
  const row = await findSubscriberRow(ctx, who);
  if (!row) throw new SubscriptionError(MESSAGES.notFound, 404);
  if (row.status !== "active") throw new SubscriptionError(MESSAGES.notActive, 409);
  await pushUnsubscribe(ctx, row.email, MESSAGES.unsubscribeFailed);
  const now = new Date().toISOString();
  const lists = await listKeysOfSubscriber(ctx, row.id);
  await ctx.db.transaction().execute(async (trx) => {
    await markUnsubscribed(trx, ctx.tenant.id, row.id, now);
    await recordUnsubscribe(trx, ctx.tenant.id, row.id, now);
    await recordEvent(
      trx,
      ctx.tenant.id,
      { subscriberId: row.id, kind: "unsubscribed", detail: { via: "link", lists } },
      now,
    );
  });
  return { ...toSubscriberView(row, []), status: "unsubscribed" };
}

/**
 * The feedback form's answer, once per unsubscribe (the unique index of migration 0016 holds it
 * even for two answers at once). False when this unsubscribe already has its answer.
 */
export async function recordUnsubscribeFeedback(
  ctx: SubscriptionContext,
  input: {
    subscriberId: number;
    reason: (typeof FEEDBACK_REASONS)[number];
    details?: string;
  },
): Promise<boolean> {
  const db = tenantDb(ctx.db, ctx.tenant.id);
  const subscriber = await db
    .selectFrom("subscribers")
    .select("unsubscribed_at")
    .where("id", "=", input.subscriberId)
    .executeTakeFirst();
  const unsubscribedAt = subscriber?.unsubscribed_at ?? null;
  if (!unsubscribedAt) return false;
  const inserted = await db
    .insertInto("unsubscribe_feedback")
    .values({
      tenant_id: ctx.tenant.id,
      subscriber_id: input.subscriberId,
      reason: input.reason,
      details: input.reason === "Other" ? (input.details?.trim() ?? null) : null,
      unsubscribed_at: unsubscribedAt,
      created_at: new Date().toISOString(),
    })
    .onConflict((conflict) =>
      conflict.columns(["tenant_id", "subscriber_id", "unsubscribed_at"]).doNothing(),
    )
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Unsubscribe answers of erased subscribers: the reason stays as an anonymous count. */
export const anonymiseFeedback: SubscriberChunkWrite = (db, ids) =>
  db
    .updateTable("unsubscribe_feedback")
    .set({ subscriber_id: null, details: null })
    .where("subscriber_id", "in", ids)
    .execute();

/** Why people left (SPEC §2 feedback form): a count per reason and the latest 'Other' texts. */
export async function feedbackSummary(
  ctx: Pick<Scope, "db" | "tenant">,
  latestOthers = 20,
): Promise<{
  reasons: { reason: (typeof FEEDBACK_REASONS)[number]; count: number }[];
  others: { text: string; createdAt: string }[];
}> {
  const db = tenantDb(ctx.db, ctx.tenant.id);
  const counts = await db
    .selectFrom("unsubscribe_feedback")
    .select(["reason", (eb) => eb.fn.countAll().as("count")])
    .groupBy("reason")
    .execute();
  const others = await db
    .selectFrom("unsubscribe_feedback")
    .select(["details", "created_at"])
    .where("reason", "=", "Other")
    .where("details", "is not", null)
    .where("details", "!=", "")
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(latestOthers)
    .execute();
  return {
    reasons: FEEDBACK_REASONS.map((reason) => ({
      reason,
      count: Number(counts.find((row) => row.reason === reason)?.count ?? 0),
    })),
    others: others.map((row) => ({ text: row.details ?? "", createdAt: row.created_at })),
  };
}
