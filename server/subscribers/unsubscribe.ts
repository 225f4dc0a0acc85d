import { FEEDBACK_REASONS } from "../../shared/schemas/unsubscribe";
import { recordUnsubscribe } from "../campaigns/tracking";
import type { Db } from "../db";
import { pushUnsubscribe } from "../providers/mailerlite-mirror";
import type { Scope } from "../scope";
import { MESSAGES, SubscriptionError } from "./errors";
import { recordEvent } from "./events";
import { markUnsubscribed } from "./store";
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
  const subscriber = await ctx.db
    .selectFrom("subscribers")
    .select("unsubscribed_at")
    .where("tenant_id", "=", ctx.tenant.id)
    .where("id", "=", input.subscriberId)
    .executeTakeFirst();
  const unsubscribedAt = subscriber?.unsubscribed_at ?? null;
  if (!unsubscribedAt) return false;
  const inserted = await ctx.db
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
export async function anonymiseFeedback(
  db: Db,
  tenantId: string,
  subscriberIds: readonly number[],
): Promise<void> {
  for (let start = 0; start < subscriberIds.length; start += 500) {
    await db
      .updateTable("unsubscribe_feedback")
      .set({ subscriber_id: null, details: null })
      .where("tenant_id", "=", tenantId)
      .where("subscriber_id", "in", subscriberIds.slice(start, start + 500))
      .execute();
  }
}

/** Why people left (SPEC §2 feedback form): a count per reason and the latest 'Other' texts. */
export async function feedbackSummary(
  ctx: Pick<Scope, "db" | "tenant">,
  latestOthers = 20,
): Promise<{
  reasons: { reason: (typeof FEEDBACK_REASONS)[number]; count: number }[];
  others: { text: string; createdAt: string }[];
}> {
  const counts = await ctx.db
    .selectFrom("unsubscribe_feedback")
    .select(["reason", (eb) => eb.fn.countAll().as("count")])
    .where("tenant_id", "=", ctx.tenant.id)
    .groupBy("reason")
    .execute();
  const others = await ctx.db
    .selectFrom("unsubscribe_feedback")
    .select(["details", "created_at"])
    .where("tenant_id", "=", ctx.tenant.id)
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
