import { sql, type UpdateQueryBuilder, type UpdateResult } from "kysely";
import type { Db } from "./db";
import type { Database } from "./db/schema";
import { crossTenant, tenantDb } from "./db/tenant-guard";

/*
 * The job machinery the two import tables share (issue 33): subscriber_imports (CSV files, a
 * MailerLite move) and archive_imports (Ghost and Substack newsletters). A job is claimed by one
 * worker, says it is alive as it writes, and is taken over by another once it has been silent
 * for IMPORT_STALE_MS. Each table's own module stays its writer (server/architecture.test.ts):
 * it names its table here, and this module only claims and guards jobs in it.
 */

/** The tables whose rows are import jobs (status, claimed_by, heartbeat_at, started_at). */
export type ImportJobTable = "subscriber_imports" | "archive_imports";

/** A running job whose worker has not written for this long is taken over. */
export const IMPORT_STALE_MS = 30_000;

export interface JobRef {
  id: number;
  tenantId: string;
}

/**
 * Takes the oldest job of `table` waiting (or one whose worker went silent) for `workerId`; null
 * if none. The update names the state it saw, so of two workers only one takes a job. With
 * `only`, that job or none (the command line runs the job it queued).
 */
export async function claimJob(
  db: Db,
  table: ImportJobTable,
  workerId: string,
  now = new Date(),
  only?: JobRef,
): Promise<JobRef | null> {
  const stale = new Date(now.getTime() - IMPORT_STALE_MS).toISOString();
  // The worker serves every tenant: it finds work across them (the command line, in the one
  // tenant it names), then acts within one.
  const waiting = await (only ? tenantDb(db, only.tenantId) : crossTenant(db))
    .selectFrom(table)
    .select(["id", "tenant_id", "status", "heartbeat_at"])
    .where((eb) =>
      eb.or([
        eb("status", "=", "queued"),
        eb.and([eb("status", "=", "running"), eb("heartbeat_at", "<", stale)]),
      ]),
    )
    .$if(only !== undefined, (qb) => qb.where("id", "=", only?.id ?? 0))
    .orderBy("id")
    .limit(1)
    .executeTakeFirst();
  if (!waiting) return null;
  const at = now.toISOString();
  const claimed = await tenantDb(db, waiting.tenant_id)
    .updateTable(table)
    .set({
      status: "running",
      claimed_by: workerId,
      heartbeat_at: at,
      started_at: sql<string>`coalesce(started_at, ${at})`,
    })
    .where("id", "=", waiting.id)
    .where("status", "=", waiting.status)
    .where((eb) =>
      waiting.heartbeat_at === null
        ? eb("heartbeat_at", "is", null)
        : eb("heartbeat_at", "=", waiting.heartbeat_at),
    )
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1
    ? { id: Number(waiting.id), tenantId: waiting.tenant_id }
    : null;
}

/** An update of one job of `table`, with `.set(...)` still to say what changes. */
export type OwnJobUpdate<T extends ImportJobTable> = UpdateQueryBuilder<
  Database,
  T,
  T,
  UpdateResult
>;

/**
 * An update of this job that changes nothing unless this worker still holds it (running, claimed
 * by `workerId`): a worker that was taken over cannot write over its successor. It runs on `on`
 * bound to the job's tenant (a transaction stays the same transaction).
 */
export function ownJobUpdate<T extends ImportJobTable>(
  on: Db,
  table: T,
  job: JobRef,
  workerId: string,
): OwnJobUpdate<T> {
  // Kysely cannot resolve column names over a generic table name: built on the pair of tables
  // (both have these columns), then given back the caller's table for its own columns in set().
  return tenantDb(on, job.tenantId)
    .updateTable(table as ImportJobTable)
    .where("id", "=", job.id)
    .where("claimed_by", "=", workerId)
    .where("status", "=", "running") as unknown as OwnJobUpdate<T>;
}

/** Another worker took the job over (this one was too slow to say it was alive). */
export class ImportTakenOver extends Error {}

/** After a guarded write (ownJobUpdate): throws ImportTakenOver when it changed no row. */
export function stillOwned(result: UpdateResult): void {
  if (Number(result.numUpdatedRows) !== 1) throw new ImportTakenOver();
}

/**
 * Between two steps of a job: lets the process answer requests (SQLite's calls never leave the
 * thread), then, if the worker is shutting down, hands the job back to the queue so the next
 * worker goes on from the last step written. Whether to go on.
 */
export async function mayGoOn(
  db: Db,
  table: ImportJobTable,
  job: JobRef,
  workerId: string,
  keepGoing: () => boolean,
): Promise<boolean> {
  await new Promise((resolve) => setImmediate(resolve));
  if (keepGoing()) return true;
  await ownJobUpdate(db, table, job, workerId)
    .set({ status: "queued", claimed_by: null })
    .execute();
  return false;
}
