import type { Db } from "../db";

/**
 * The one writer of `subscriptions` (who is on which list) and of the pending preference changes
 * (issue 13, point 3). The sign-up flows, the builtin provider, the MailerLite mirror and webhook
 * and the CSV import all change memberships through these functions, so every row carries its
 * tenant and no module writes the table its own way. Pass a transaction as `db` to join one.
 */

/** Postgres allows 65,535 parameters per statement, SQLite 32,766: chunks stay far below both. */
const CHUNK = 500;

/** Splits a large batch into statements of `size` rows. */
export function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const parts: T[][] = [];
  for (let start = 0; start < items.length; start += size) {
    parts.push(items.slice(start, start + size));
  }
  return parts;
}

export interface Membership {
  subscriberId: number;
  listId: number;
}

/** Adds memberships; ones that exist already are kept as they are. */
export async function joinLists(
  db: Db,
  tenantId: string,
  memberships: readonly Membership[],
  now: string,
): Promise<void> {
  for (const part of chunks(memberships)) {
    await db
      .insertInto("subscriptions")
      .values(
        part.map(({ subscriberId, listId }) => ({
          tenant_id: tenantId,
          subscriber_id: subscriberId,
          list_id: listId,
          created_at: now,
        })),
      )
      .onConflict((oc) => oc.columns(["subscriber_id", "list_id"]).doNothing())
      .execute();
  }
}

/** Takes the subscribers off every list. */
export async function leaveAllLists(
  db: Db,
  tenantId: string,
  subscriberIds: readonly number[],
): Promise<void> {
  for (const part of chunks(subscriberIds)) {
    await db
      .deleteFrom("subscriptions")
      .where("tenant_id", "=", tenantId)
      .where("subscriber_id", "in", part)
      .execute();
  }
}

/** Takes one subscriber off one list. */
export async function leaveList(db: Db, tenantId: string, membership: Membership): Promise<void> {
  await db
    .deleteFrom("subscriptions")
    .where("tenant_id", "=", tenantId)
    .where("subscriber_id", "=", membership.subscriberId)
    .where("list_id", "=", membership.listId)
    .execute();
}

/** The subscriber is on exactly these lists afterwards. */
export async function replaceLists(
  db: Db,
  tenantId: string,
  subscriberId: number,
  listIds: readonly number[],
  now: string,
): Promise<void> {
  await leaveAllLists(db, tenantId, [subscriberId]);
  await joinLists(
    db,
    tenantId,
    listIds.map((listId) => ({ subscriberId, listId })),
    now,
  );
}

export interface PendingChange {
  tokenHash: string;
  activeLists: readonly string[];
  inactiveLists: readonly string[];
  createdAt: string;
  expiresAt: string;
}

/** Records a subscriber's pending preference change, replacing one pending before. */
export async function savePendingChange(
  db: Db,
  tenantId: string,
  subscriberId: number,
  change: PendingChange,
): Promise<void> {
  const values = {
    token_hash: change.tokenHash,
    active_lists: JSON.stringify(change.activeLists),
    inactive_lists: JSON.stringify(change.inactiveLists),
    created_at: change.createdAt,
    expires_at: change.expiresAt,
    used_at: null,
  };
  await db
    .insertInto("preference_changes")
    .values({ tenant_id: tenantId, subscriber_id: subscriberId, ...values })
    .onConflict((oc) => oc.column("subscriber_id").doUpdateSet(values))
    .execute();
}

/** The subscriber's pending change, used or not. */
export async function findPendingChange(db: Db, tenantId: string, subscriberId: number) {
  return db
    .selectFrom("preference_changes")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("subscriber_id", "=", subscriberId)
    .executeTakeFirst();
}

/** Marks the subscriber's pending change as applied. */
export async function spendPendingChange(
  db: Db,
  tenantId: string,
  subscriberId: number,
  now: string,
): Promise<void> {
  await db
    .updateTable("preference_changes")
    .set({ used_at: now })
    .where("tenant_id", "=", tenantId)
    .where("subscriber_id", "=", subscriberId)
    .execute();
}

/** Drops the subscribers' pending changes (they left, or the link never went out). */
export async function dropPendingChanges(
  db: Db,
  tenantId: string,
  subscriberIds: readonly number[],
): Promise<void> {
  for (const part of chunks(subscriberIds)) {
    await db
      .deleteFrom("preference_changes")
      .where("tenant_id", "=", tenantId)
      .where("subscriber_id", "in", part)
      .execute();
  }
}
