import { sql } from "kysely";
import type { Db } from "../db";
import { isPostgres } from "../db/portable";
import type { DeliveryRow } from "../db/schema";
import { crossTenant, tenantDb } from "../db/tenant-guard";
import type { SubscriberChunkWrite } from "../subscribers/store";
import { type Audience, recipientsOf } from "./recipients";

/**
 * The one writer of `deliveries` (one row per recipient of a campaign: the send queue) — issue 13,
 * point 3. Starting and cancelling a campaign, the sender's claims and results, welcome sequences,
 * bounce handling and erasure all write through these functions; who receives a campaign is
 * recipients.ts's, its report's events campaign-events.ts's. Pass a transaction as `db` to join one.
 */

/** The columns a queued delivery is written with (the rest keep their defaults). */
const QUEUED_COLUMNS = [
  "tenant_id",
  "campaign_id",
  "subscriber_id",
  "email",
  "status",
  "attempts",
  "next_attempt_at",
] as const;

/**
 * Queues one pending delivery per recipient of the audience not yet queued; answers the total. An
 * A/B test's arm (ab-test.ts) records its subject and phase on each row, and the test share's arms
 * take a random `sample` of those not yet queued.
 */
export async function queueDeliveries(
  root: Db,
  campaign: { tenantId: string; id: string; audience: Audience },
  now: string,
  arm?: { variant: number; phase: "test" | "remainder"; sample?: number },
): Promise<number> {
  const { tenantId, id, audience } = campaign;
  const db = tenantDb(root, tenantId);
  if (audience.listIds.length > 0 || audience.segments.length > 0) {
    let recipients = recipientsOf(db, tenantId, audience).select((eb) => [
      "subscribers.tenant_id",
      eb.val(id).as("campaign_id"),
      "subscribers.id",
      "subscribers.email",
      eb.val("pending").as("status"),
      eb.val(0).as("attempts"),
      eb.val(now).as("next_attempt_at"),
      eb.val(arm?.variant ?? null).as("ab_variant"),
      eb.val(arm?.phase ?? null).as("ab_phase"),
    ]);
    if (arm?.sample !== undefined) {
      recipients = recipients
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom("deliveries")
                .select(sql`1`.as("one"))
                .where("deliveries.campaign_id", "=", id)
                .whereRef("deliveries.subscriber_id", "=", "subscribers.id"),
            ),
          ),
        )
        .orderBy(sql`random()`)
        .limit(arm.sample);
    } else recipients = recipients.orderBy("subscribers.id");
    await db
      .insertInto("deliveries")
      .columns([...QUEUED_COLUMNS, "ab_variant", "ab_phase"])
      .expression(recipients)
      .onConflict((oc) => oc.columns(["campaign_id", "subscriber_id"]).doNothing())
      .execute();
  }
  const { total } = await db
    .selectFrom("deliveries")
    .select((eb) => eb.fn.countAll<number>().as("total"))
    .where("campaign_id", "=", id)
    .executeTakeFirstOrThrow();
  return Number(total);
}

/** What is still waiting is never sent: a cancelled campaign's, or a suppressed subscriber's. */
export async function cancelPendingDeliveries(
  root: Db,
  tenantId: string,
  of: { campaignId: string } | { subscriberId: number; reason: string },
): Promise<void> {
  let query = tenantDb(root, tenantId)
    .updateTable("deliveries")
    .set({ status: "cancelled", ...("reason" in of ? { error: of.reason } : {}) })
    .where("status", "=", "pending");
  query =
    "campaignId" in of
      ? query.where("campaign_id", "=", of.campaignId)
      : query.where("subscriber_id", "=", of.subscriberId);
  await query.execute();
}

/** Marks a delivery bounced or complained about, once; false when it already was. */
export async function markDeliveryFeedback(
  root: Db,
  tenantId: string,
  deliveryId: number,
  feedback: { column: "bounced_at" | "complained_at"; at: string; detail: string },
): Promise<boolean> {
  const marked = await tenantDb(root, tenantId)
    .updateTable("deliveries")
    .set({ [feedback.column]: feedback.at, feedback: feedback.detail.slice(0, 1000) })
    .where("id", "=", deliveryId)
    .where(feedback.column, "is", null)
    .executeTakeFirst();
  return Number(marked.numUpdatedRows) > 0;
}

// The sender's side of the queue. A sender serves every tenant: claims are found across tenants,
// and each row it then writes is written through a database bound to the row's tenant.

/** Claims older than this belong to a dead worker (a live one renews its claims every 5 s). */
export const STALE_CLAIM_MS = 15_000;

/**
 * Takes up to `limit` due deliveries of one sending campaign for `workerId`. Which campaigns, and
 * how many each, is fair-claims.ts's: tenants take turns. No ORDER BY: the rows come in the
 * (campaign_id, status) index's order, oldest first, without sorting a large campaign's queue.
 */
export async function claimCampaignDeliveries(
  db: Db,
  workerId: string,
  campaignId: string,
  limit: number,
  now: string,
): Promise<DeliveryRow[]> {
  const lock = isPostgres(db) ? sql`for update of deliveries skip locked` : sql``;
  const result = await sql<DeliveryRow>`
    update deliveries set status = 'sending', claimed_by = ${workerId}, claimed_at = ${now}
    where id in (
      select deliveries.id from deliveries
      join campaigns on campaigns.id = deliveries.campaign_id
      where deliveries.campaign_id = ${campaignId} and deliveries.status = 'pending'
        and deliveries.next_attempt_at <= ${now} and campaigns.status = 'sending'
      limit ${limit}
      ${lock}
    )
    returning *`.execute(crossTenant(db)); // across tenants, like the claims above (raw: the lock)
  return result.rows.sort((a, b) => Number(a.id) - Number(b.id));
}

/** The heartbeat: claims still in hand stay fresh. */
export async function renewDeliveryClaims(
  db: Db,
  workerId: string,
  deliveryIds: readonly number[],
  now: string,
): Promise<void> {
  if (deliveryIds.length === 0) return;
  await crossTenant(db)
    .updateTable("deliveries")
    .set({ claimed_at: now })
    .where("claimed_by", "=", workerId)
    .where("status", "=", "sending")
    .where("id", "in", deliveryIds)
    .execute();
}

/** Claims older than `staleBefore`, and `workerId`'s own leftovers, go back to pending. */
export async function releaseStaleDeliveryClaims(
  db: Db,
  workerId: string,
  staleBefore: string,
): Promise<void> {
  await crossTenant(db)
    .updateTable("deliveries")
    .set({ status: "pending", claimed_by: null, claimed_at: null })
    .where("status", "=", "sending")
    .where((eb) => eb.or([eb("claimed_at", "<", staleBefore), eb("claimed_by", "=", workerId)]))
    .execute();
}

/** Everything `workerId` still holds goes back to pending (a sender stopping). */
export async function releaseOwnDeliveryClaims(db: Db, workerId: string): Promise<void> {
  await crossTenant(db)
    .updateTable("deliveries")
    .set({ status: "pending", claimed_by: null, claimed_at: null })
    .where("claimed_by", "=", workerId)
    .where("status", "=", "sending")
    .execute();
}

/**
 * Claimed deliveries (of one tenant) back to pending: a paused campaign's, or a stopping worker's.
 * One statement for the lot, so a batch stands down at once however slow the database is.
 */
export async function releaseClaims(db: Db, workerId: string, rows: DeliveryRow[]): Promise<void> {
  await endClaims(db, workerId, rows, "pending");
}

/** Claimed deliveries (of one tenant) of a cancelled campaign: never sent. */
export async function cancelClaims(db: Db, workerId: string, rows: DeliveryRow[]): Promise<void> {
  await endClaims(db, workerId, rows, "cancelled");
}

async function endClaims(
  db: Db,
  workerId: string,
  rows: DeliveryRow[],
  status: "pending" | "cancelled",
): Promise<void> {
  const [first] = rows;
  if (!first) return;
  await tenantDb(db, first.tenant_id)
    .updateTable("deliveries")
    .set({ status, claimed_by: null, claimed_at: null })
    .where(
      "id",
      "in",
      rows.map((row) => row.id),
    )
    .where("claimed_by", "=", workerId)
    .execute();
}

/** The SMTP server accepted the message. */
export async function markDeliverySent(
  db: Db,
  workerId: string,
  row: DeliveryRow,
  result: { attempts: number; messageId: string; at: string },
): Promise<void> {
  await tenantDb(db, row.tenant_id)
    .updateTable("deliveries")
    .set({
      status: "sent",
      message_id: result.messageId,
      attempts: result.attempts,
      sent_at: result.at,
      error: null,
      claimed_by: workerId,
    })
    .where("id", "=", row.id)
    // Ours still, or handed back to pending while the database was away (not yet resent).
    .where((eb) => eb.or([eb("claimed_by", "=", workerId), eb("status", "=", "pending")]))
    .execute();
}

/** A try failed: pending again from `nextAttemptAt`, or failed for good; false if no longer ours. */
export async function markDeliveryFailed(
  db: Db,
  workerId: string,
  row: DeliveryRow,
  failure: { retry: boolean; attempts: number; error: string; nextAttemptAt: string },
): Promise<boolean> {
  const failed = await tenantDb(db, row.tenant_id)
    .updateTable("deliveries")
    .set({
      status: failure.retry ? "pending" : "failed",
      attempts: failure.attempts,
      error: failure.error,
      claimed_by: null,
      claimed_at: null,
      next_attempt_at: failure.nextAttemptAt,
    })
    .where("id", "=", row.id)
    .where("claimed_by", "=", workerId)
    .executeTakeFirst();
  return Number(failed.numUpdatedRows) === 1;
}

/**
 * An erased subscriber's deliveries (GDPR Art. 17): the address and the bounce report (which quotes
 * it) go; the rows and their events stay, so the campaign's counts hold.
 */
export const anonymiseDeliveries: SubscriberChunkWrite = (db, ids) =>
  db
    .updateTable("deliveries")
    .set({ email: "", feedback: null, error: null })
    .where("subscriber_id", "in", ids)
    .execute();

/**
 * Welcome sequences (issue 16, point 6): queues each running step for the active subscribers of
 * its list who joined after the step began and whose delay has passed, once each — the unique
 * (campaign, subscriber) key holds that even with several workers at once. Someone who left the
 * list, or stopped being active, is not queued for the steps still ahead. Answers how many rows.
 */
export async function enrolSequenceSteps(db: Db, now: Date): Promise<number> {
  const steps = await crossTenant(db)
    .selectFrom("campaigns")
    .select(["tenant_id", "id", "sequence_list_id", "sequence_delay_days", "started_at"])
    .where("status", "=", "sending")
    .where("sequence_list_id", "is not", null)
    .execute();
  const stamp = now.toISOString();
  let queued = 0;
  for (const step of steps) {
    const joinedBy = new Date(
      now.getTime() - (step.sequence_delay_days ?? 0) * 86_400_000,
    ).toISOString();
    // Each step's rows are its own tenant's: written through a database bound to it.
    const tenant = tenantDb(db, step.tenant_id);
    const result = await tenant
      .insertInto("deliveries")
      .columns(QUEUED_COLUMNS)
      .expression(
        tenant
          .selectFrom("subscriptions")
          .innerJoin("subscribers", "subscribers.id", "subscriptions.subscriber_id")
          .select((eb) => [
            "subscribers.tenant_id",
            eb.val(step.id).as("campaign_id"),
            "subscribers.id",
            "subscribers.email",
            eb.val("pending").as("status"),
            eb.val(0).as("attempts"),
            eb.val(stamp).as("next_attempt_at"),
          ])
          .where("subscriptions.list_id", "=", step.sequence_list_id ?? -1)
          .where("subscribers.status", "=", "active")
          .where("subscriptions.created_at", ">=", step.started_at ?? stamp)
          .where("subscriptions.created_at", "<=", joinedBy)
          .where((eb) =>
            eb.not(
              eb.exists(
                eb
                  .selectFrom("deliveries")
                  .select(sql`1`.as("one"))
                  .where("deliveries.campaign_id", "=", step.id)
                  .whereRef("deliveries.subscriber_id", "=", "subscribers.id"),
              ),
            ),
          )
          .orderBy("subscribers.id"),
      )
      .onConflict((oc) => oc.columns(["campaign_id", "subscriber_id"]).doNothing())
      .executeTakeFirst();
    queued += Number(result.numInsertedOrUpdatedRows ?? 0);
  }
  return queued;
}

/**
 * The send queue as /metrics reports it (server/metrics.ts): messages waiting or in hand for
 * campaigns that are sending (a paused campaign's rows wait for staff, not for the sender), and
 * how long the oldest due one has waited. Both read the deliveries_claim index (status,
 * next_attempt_at) for the queue's rows only, never the sent ones.
 */
export async function sendQueueState(
  db: Db,
  now: Date,
): Promise<{ depth: number; oldestAgeSeconds: number }> {
  const sending = crossTenant(db)
    .selectFrom("campaigns")
    .select("id")
    .where("status", "=", "sending");
  const [depth, oldest] = await Promise.all([
    crossTenant(db)
      .selectFrom("deliveries")
      .select((eb) => eb.fn.countAll<number | string>().as("count"))
      .where("status", "in", ["pending", "sending"])
      .where("campaign_id", "in", sending)
      .executeTakeFirst(),
    crossTenant(db)
      .selectFrom("deliveries")
      .select("next_attempt_at")
      .where("status", "=", "pending")
      .where("next_attempt_at", "<=", now.toISOString())
      .where("campaign_id", "in", sending)
      .orderBy("next_attempt_at")
      .limit(1)
      .executeTakeFirst(),
  ]);
  const oldestAt = oldest ? Date.parse(oldest.next_attempt_at) : Number.NaN;
  return {
    depth: Number(depth?.count ?? 0),
    oldestAgeSeconds: Number.isFinite(oldestAt)
      ? Math.max(0, (now.getTime() - oldestAt) / 1000)
      : 0,
  };
}
