import { sql } from "kysely";
import type { Db } from "../db";
import type { SubscriberStatus } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import { limitRefusal } from "../tenants/usage";
import { SubscriptionError } from "./errors";

/**
 * The one writer of a tenant's audience (issue 13, point 3): `subscribers`, `subscriptions` (who
 * is on which list) and `preference_changes`. The sign-up flows, the builtin provider, the
 * MailerLite mirror and webhook, bounce handling and the CSV import all write through these
 * functions, so every row carries its tenant and no module writes these tables its own way.
 * Reads stay with the modules that need them. Pass a transaction as `db` to join one.
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

/** A write to a tenant's rows of some subscribers: `db` is bound to the tenant, `ids` a chunk. */
export type SubscriberChunkWrite = (db: Db, ids: number[]) => Promise<unknown>;

/** Runs `write` over the subscribers, a chunk of ids per statement, on the tenant's database. */
export async function writeInChunks(
  root: Db,
  tenantId: string,
  subscriberIds: readonly number[],
  write: SubscriberChunkWrite,
): Promise<void> {
  const db = tenantDb(root, tenantId);
  for (const part of chunks(subscriberIds)) await write(db, part);
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

/** Deletes the subscribers' rows of a table keyed by subscriber. */
const deleteRowsOf =
  (table: "subscriptions" | "preference_changes"): SubscriberChunkWrite =>
  (db, ids) =>
    db.deleteFrom(table).where("subscriber_id", "in", ids).execute();

/** Takes the subscribers off every list. */
export async function leaveAllLists(
  db: Db,
  tenantId: string,
  subscriberIds: readonly number[],
): Promise<void> {
  await writeInChunks(db, tenantId, subscriberIds, deleteRowsOf("subscriptions"));
}

/** Takes one subscriber off one list. */
export async function leaveList(root: Db, tenantId: string, membership: Membership): Promise<void> {
  await leaveListMany(root, tenantId, membership.listId, [membership.subscriberId]);
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

/** Deletes the tenant's preference-change links that expired by `now` (the hourly purge); how many. */
export async function deleteExpiredChanges(root: Db, tenantId: string, now: Date): Promise<number> {
  const result = await tenantDb(root, tenantId)
    .deleteFrom("preference_changes")
    .where("expires_at", "<=", now.toISOString())
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The subscriber's pending change, used or not. */
export async function findPendingChange(root: Db, tenantId: string, subscriberId: number) {
  const db = tenantDb(root, tenantId);
  return db
    .selectFrom("preference_changes")
    .selectAll()
    .where("subscriber_id", "=", subscriberId)
    .executeTakeFirst();
}

/** Marks the subscriber's pending change as applied. */
export async function spendPendingChange(
  root: Db,
  tenantId: string,
  subscriberId: number,
  now: string,
): Promise<void> {
  const db = tenantDb(root, tenantId);
  await db
    .updateTable("preference_changes")
    .set({ used_at: now })
    .where("subscriber_id", "=", subscriberId)
    .execute();
}

/** Drops the subscribers' pending changes (they left, or the link never went out). */
export async function dropPendingChanges(
  db: Db,
  tenantId: string,
  subscriberIds: readonly number[],
): Promise<void> {
  await writeInChunks(db, tenantId, subscriberIds, deleteRowsOf("preference_changes"));
}

export interface NewSubscriber {
  email: string;
  name: string;
  status: SubscriberStatus;
  subscribed_at: string | null;
  unsubscribed_at: string | null;
  /** when they joined, if before now: an audience imported from elsewhere keeps its dates */
  created_at?: string;
}

/**
 * Adds subscribers (their addresses new to the tenant); answers their ids by address. Past the
 * tenant's subscriber limit (decision 057) nothing is added: SubscriptionError (429) naming it.
 */
export async function insertSubscribers(
  db: Db,
  tenantId: string,
  rows: readonly NewSubscriber[],
  now: string,
): Promise<{ id: number; email: string }[]> {
  const refusal =
    rows.length > 0 ? await limitRefusal(db, tenantId, "subscribers", rows.length) : null;
  if (refusal) throw new SubscriptionError(refusal, 429);
  const inserted: { id: number; email: string }[] = [];
  for (const part of chunks(rows, 200)) {
    const ids = await db
      .insertInto("subscribers")
      .values(
        part.map((row) => ({
          ...row,
          tenant_id: tenantId,
          created_at: row.created_at ?? now,
          updated_at: now,
        })),
      )
      .returning(["id", "email"])
      .execute();
    inserted.push(...ids.map(({ id, email }) => ({ id: Number(id), email })));
  }
  return inserted;
}

/** Adds one subscriber; answers the new id. */
export async function insertSubscriber(
  db: Db,
  tenantId: string,
  row: NewSubscriber,
  now: string,
): Promise<number> {
  const [inserted] = await insertSubscribers(db, tenantId, [row], now);
  if (!inserted) throw new Error("subscriber not inserted");
  return inserted.id;
}

export type SubscriberChange = Partial<Omit<NewSubscriber, "email" | "created_at">>;

/**
 * Changes a subscriber's name, status or dates. `unlessStatusIn` leaves a subscriber alone whose
 * status is one of those (a bounce must not hide an earlier complaint); answers whether it changed.
 */
export async function updateSubscriber(
  root: Db,
  tenantId: string,
  subscriberId: number,
  change: SubscriberChange,
  now: string,
  options: { unlessStatusIn?: readonly SubscriberStatus[] } = {},
): Promise<boolean> {
  const db = tenantDb(root, tenantId);
  let query = db
    .updateTable("subscribers")
    .set({ ...change, updated_at: now })
    .where("id", "=", subscriberId);
  if (options.unlessStatusIn?.length)
    query = query.where("status", "not in", options.unlessStatusIn);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The subscriber leaves: off every list, no pending change, status unsubscribed. */
export async function markUnsubscribed(
  db: Db,
  tenantId: string,
  subscriberId: number,
  now: string,
): Promise<void> {
  await leaveAllLists(db, tenantId, [subscriberId]);
  await dropPendingChanges(db, tenantId, [subscriberId]);
  await updateSubscriber(
    db,
    tenantId,
    subscriberId,
    { status: "unsubscribed", unsubscribed_at: now },
    now,
  );
}

/** Takes everyone off one list (the list is being deleted). */
export async function emptyList(root: Db, tenantId: string, listId: number): Promise<void> {
  const db = tenantDb(root, tenantId);
  await db.deleteFrom("subscriptions").where("list_id", "=", listId).execute();
}

/** A subscriber's new address (staff edit it on the profile). */
export async function changeEmail(
  root: Db,
  tenantId: string,
  subscriberId: number,
  email: string,
  now: string,
): Promise<void> {
  const db = tenantDb(root, tenantId);
  await db
    .updateTable("subscribers")
    .set({ email, updated_at: now })
    .where("id", "=", subscriberId)
    .execute();
}

/**
 * Erases subscribers (GDPR Art. 17): off every list, no pending change, and the row made anonymous
 * — no address, no name — but kept, so the campaigns they were part of keep their counts. An
 * erased address that signs up again is a new subscriber.
 */
export async function eraseSubscriberRows(
  root: Db,
  tenantId: string,
  subscriberIds: readonly number[],
  now: string,
): Promise<void> {
  await leaveAllLists(root, tenantId, subscriberIds);
  await dropPendingChanges(root, tenantId, subscriberIds);
  await writeInChunks(root, tenantId, subscriberIds, (db, ids) =>
    db
      .updateTable("subscribers")
      .set({
        email: sql<string>`'erased-' || id || '@erased.invalid'`,
        name: "",
        status: "unsubscribed",
        subscribed_at: null,
        unsubscribed_at: now,
        erased_at: now,
        updated_at: now,
      })
      .where("id", "in", ids)
      .execute(),
  );
}

/** Takes these subscribers off one list. */
export async function leaveListMany(
  root: Db,
  tenantId: string,
  listId: number,
  subscriberIds: readonly number[],
): Promise<void> {
  await writeInChunks(root, tenantId, subscriberIds, (db, ids) =>
    db
      .deleteFrom("subscriptions")
      .where("list_id", "=", listId)
      .where("subscriber_id", "in", ids)
      .execute(),
  );
}
