import { sql } from "kysely";
import type { Db } from "../db";
import { isPostgres } from "../db/portable";
import type { DeliveryRow } from "../db/schema";
import { crossTenant } from "../db/tenant-guard";

/**
 * The sender's side of the send queue (`deliveries`, queued by deliveries.ts): claiming due rows,
 * keeping the claims fresh, handing them back, and marking each row's outcome; and the queue's
 * state for /metrics. A sender serves every tenant: claims are found across tenants, and each row
 * it then writes names its own tenant. Pass a transaction as `db` to join one.
 */

/** Claims older than this belong to a dead worker (a live one renews its claims every 5 s). */
export const STALE_CLAIM_MS = 15_000;

/** Takes up to `limit` due deliveries of sending campaigns for `workerId`, oldest first. */
export async function claimDeliveries(
  db: Db,
  workerId: string,
  limit: number,
  now: string,
): Promise<DeliveryRow[]> {
  const lock = isPostgres(db) ? sql`for update of deliveries skip locked` : sql``;
  const result = await sql<DeliveryRow>`
    update deliveries set status = 'sending', claimed_by = ${workerId}, claimed_at = ${now}
    where id in (
      select deliveries.id from deliveries
      join campaigns on campaigns.id = deliveries.campaign_id
      where deliveries.status = 'pending' and deliveries.next_attempt_at <= ${now}
        and campaigns.status = 'sending'
      order by deliveries.id
      limit ${limit}
      ${lock}
    )
    returning *`.execute(db);
  return result.rows;
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
  await db
    .updateTable("deliveries")
    .set({ status, claimed_by: null, claimed_at: null })
    .where("tenant_id", "=", first.tenant_id)
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
  await db
    .updateTable("deliveries")
    .set({
      status: "sent",
      message_id: result.messageId,
      attempts: result.attempts,
      sent_at: result.at,
      error: null,
      claimed_by: workerId,
    })
    .where("tenant_id", "=", row.tenant_id)
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
  const failed = await db
    .updateTable("deliveries")
    .set({
      status: failure.retry ? "pending" : "failed",
      attempts: failure.attempts,
      error: failure.error,
      claimed_by: null,
      claimed_at: null,
      next_attempt_at: failure.nextAttemptAt,
    })
    .where("tenant_id", "=", row.tenant_id)
    .where("id", "=", row.id)
    .where("claimed_by", "=", workerId)
    .executeTakeFirst();
  return Number(failed.numUpdatedRows) === 1;
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
