import { SUBSCRIBER_STATUSES } from "../../shared/schemas/subscribers";
import type { Db } from "../db";
import type { SubscriberStatus } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import { getLogger } from "../logger";

/*
 * How many subscribers a tenant has, per status, in all and on each list — without counting a
 * million rows (issue 16). Triggers on subscribers and subscriptions append a +1 or −1 row to
 * audience_counts for every change (migration 0027); the sum per key is the count. Appending
 * never waits on another writer; folding the rows into one per key keeps the sum short.
 */

export type StatusCounts = Record<SubscriberStatus, number>;

export interface AudienceCounts {
  /** the whole tenant */
  all: StatusCounts;
  /** list id → counts of its members */
  lists: Map<number, StatusCounts>;
}

/** Rows beyond one per key after which a read folds them. */
const FOLD_AFTER_ROWS = 2_000;

export const zeroCounts: Readonly<StatusCounts> = Object.freeze(
  Object.fromEntries(SUBSCRIBER_STATUSES.map((status) => [status, 0])) as StatusCounts,
);
const zero = (): StatusCounts => ({ ...zeroCounts });

/** The tenant's counts as they stand. */
export async function audienceCounts(root: Db, tenantId: string): Promise<AudienceCounts> {
  const db = tenantDb(root, tenantId);
  const rows = await db
    .selectFrom("audience_counts")
    .select(["list_id", "status", (eb) => eb.fn.sum<number>("n").as("n")])
    .select((eb) => eb.fn.countAll<number>().as("rows"))
    .groupBy(["list_id", "status"])
    .execute();
  const counts: AudienceCounts = { all: zero(), lists: new Map() };
  let stored = 0;
  for (const row of rows) {
    stored += Number(row.rows);
    const listId = Number(row.list_id);
    let target = counts.all;
    if (listId !== 0) {
      target = counts.lists.get(listId) ?? zero();
      counts.lists.set(listId, target);
    }
    if (row.status in target) target[row.status as SubscriberStatus] = Number(row.n);
  }
  if (stored > rows.length + FOLD_AFTER_ROWS) {
    // After the answer: the reader does not wait for the write.
    foldAudienceCounts(db, tenantId).catch((error: unknown) =>
      getLogger().warn({ err: error, tenantId }, "folding audience counts failed"),
    );
  }
  return counts;
}

/** The sum of `counts` over `statuses` (all of them when none are given). */
export function sumOf(counts: StatusCounts, statuses: readonly string[] = []): number {
  const chosen = statuses.length > 0 ? statuses : SUBSCRIBER_STATUSES;
  return chosen.reduce((sum, status) => sum + (counts[status as SubscriberStatus] ?? 0), 0);
}

/**
 * Folds the tenant's rows into one per key. The delete reads and removes the rows in one
 * statement, so a row another writer commits meanwhile stays for the next fold.
 */
export async function foldAudienceCounts(root: Db, tenantId: string): Promise<void> {
  const db = tenantDb(root, tenantId);
  await db.transaction().execute(async (trx) => {
    const rows = await trx
      .deleteFrom("audience_counts")
      .returning(["list_id", "status", "n"])
      .execute();
    const sums = new Map<string, { list_id: number; status: string; n: number }>();
    for (const row of rows) {
      const key = `${row.list_id}\u0000${row.status}`;
      const sum = sums.get(key) ?? { list_id: Number(row.list_id), status: row.status, n: 0 };
      sum.n += Number(row.n);
      sums.set(key, sum);
    }
    const kept = [...sums.values()].filter((sum) => sum.n !== 0);
    for (let i = 0; i < kept.length; i += 500) {
      await trx
        .insertInto("audience_counts")
        .values(kept.slice(i, i + 500).map((sum) => ({ tenant_id: tenantId, ...sum })))
        .execute();
    }
  });
}

/** A deleted tenant's counts (the triggers wrote some while its rows went). */
export async function dropAudienceCounts(db: Db, tenantId: string): Promise<void> {
  await tenantDb(db, tenantId).deleteFrom("audience_counts").execute();
}
