import { readImportRowsOffThread, readSourceRowsOffThread } from "../cpu/tasks";
import type { Db } from "../db";
import type { ImportSource, SubscriberImportsTable } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import {
  claimJob,
  IMPORT_STALE_MS,
  type JobRef,
  mayGoOn,
  type OwnJobUpdate,
  ownJobUpdate,
} from "../import-jobs";
import { AUDIENCE_IMPORT } from "../jobs/kinds";
import { queueJob } from "../jobs/store";
import { mailerLiteToLeave } from "../providers/mailerlite-move";
import type { Scope } from "../scope";
import type { TenantConfig } from "../tenants/config";
import { importsAtOnceRefusal, newSubscribersRefusal } from "./import-limits";
import { ImportFileError, type PreparedImport, type RefusedRow } from "./import-rows";
import { type FileSource, withLists } from "./import-sources";
import { listTenantLists } from "./lists";

/*
 * CSV imports as jobs (issue 16): the upload is checked at once (a file without an email column is
 * refused on the spot, and the refused rows are known before anything is written), then written
 * in the background, a chunk per transaction, each chunk's progress committed with it. Staff watch
 * a progress bar; a process that dies mid-import leaves a job another process (or itself, after
 * a restart) takes over from the last committed chunk, so no row is written twice.
 *
 * This module is the one writer of `subscriber_imports`: it queues jobs and hands the runner
 * (import-run.ts) the guarded update of a job it holds; import-worker.ts runs them in turn.
 */

type AdminScope = Pick<Scope, "db" | "tenant">;

/**
 * Rows written per transaction: short enough that sign-ups never wait long on an import (on SQLite
 * a chunk holds the one writer's lock, and, the driver being synchronous, this process too).
 */
export const IMPORT_CHUNK_ROWS = 1_000;
/** Refused rows kept for the report (all are counted). */
export const REFUSED_ROWS_KEPT = 1_000;
export { IMPORT_STALE_MS };

export type ImportStatus = SubscriberImportsTable["status"];

export interface ImportJob {
  id: number;
  fileName: string;
  source: ImportSource;
  status: ImportStatus;
  /** valid rows to write */
  totalRows: number;
  /** of them, written */
  doneRows: number;
  created: number;
  updated: number;
  keptUnsubscribed: number;
  refusedCount: number;
  refused: RefusedRow[];
  error: string | null;
  createdBy: string;
  createdAt: string;
  finishedAt: string | null;
}

const JOB_COLUMNS = [
  "id",
  "file_name",
  "source",
  "status",
  "total_rows",
  "done_rows",
  "created",
  "updated",
  "kept_unsubscribed",
  "refused_count",
  "refused",
  "error",
  "created_by",
  "created_at",
  "finished_at",
] as const;

type JobRow = {
  id: number;
  file_name: string;
  source: ImportSource;
  status: ImportStatus;
  total_rows: number;
  done_rows: number;
  created: number;
  updated: number;
  kept_unsubscribed: number;
  refused_count: number;
  refused: string;
  error: string | null;
  created_by: string;
  created_at: string;
  finished_at: string | null;
};

const toJob = (row: JobRow): ImportJob => ({
  id: Number(row.id),
  fileName: row.file_name,
  source: row.source,
  status: row.status,
  totalRows: Number(row.total_rows),
  doneRows: Number(row.done_rows),
  created: Number(row.created),
  updated: Number(row.updated),
  keptUnsubscribed: Number(row.kept_unsubscribed),
  refusedCount: Number(row.refused_count),
  refused: JSON.parse(row.refused) as RefusedRow[],
  error: row.error,
  createdBy: row.created_by,
  createdAt: row.created_at,
  finishedAt: row.finished_at,
});

export class ImportNotFound extends Error {}

/**
 * A file's rows as `source` reads them, checked against the tenant's lists. With `createLists`
 * (the job runs) the lists another platform's labels name are made; without (the upload is only
 * checked) nothing is written.
 */
export async function prepareSource(
  ctx: { db: Db; tenant: TenantConfig },
  source: FileSource,
  text: string,
  createLists: boolean,
): Promise<PreparedImport> {
  // The CSV is parsed and its rows checked in a worker thread (server/cpu/pool.ts).
  const lists = await listTenantLists(ctx.db, ctx.tenant);
  const defaultList = lists.find((list) => list.key === ctx.tenant.emailGroups.default) ?? lists[0];
  if (source === "herald") return { ...(await readImportRowsOffThread(text, lists)), defaultList };
  const { rows, refused } = await readSourceRowsOffThread(source, text);
  const withNames = await withLists(ctx.db, ctx.tenant, source, rows, defaultList, createLists);
  return { rows: withNames, refused, defaultList };
}

/**
 * Checks an uploaded file and queues it; the job's id. A file that cannot be imported at all
 * throws ImportFileError and queues nothing. `source` says whose export it is (a Herald CSV,
 * Ghost's members CSV, Substack's email list).
 */
export async function queueImport(
  ctx: AdminScope,
  by: string,
  fileName: string,
  text: string,
  source: FileSource = "herald",
): Promise<number> {
  const { rows, refused } = await prepareSource(ctx, source, text, false);
  if (rows.length === 0 && refused.length === 0) {
    throw new ImportFileError("The file has no rows below its header.");
  }
  // Past a limit (decision 057) nothing is queued.
  const refusal =
    (await importsAtOnceRefusal(ctx.db, ctx.tenant.id)) ??
    (await newSubscribersRefusal(
      ctx.db,
      ctx.tenant.id,
      rows.map((row) => row.email),
    ));
  if (refusal) throw new ImportFileError(refusal);
  const now = new Date().toISOString();
  const nothingToWrite = rows.length === 0;
  // The row and its job together, or neither.
  return ctx.db.transaction().execute(async (trx) => {
    const { id } = await trx
      .insertInto("subscriber_imports")
      .values({
        tenant_id: ctx.tenant.id,
        file_name: fileName.slice(0, 200),
        source,
        csv: nothingToWrite ? "" : text,
        status: nothingToWrite ? "done" : "queued",
        total_rows: rows.length,
        refused_count: refused.length,
        refused: JSON.stringify(refused.slice(0, REFUSED_ROWS_KEPT)),
        created_by: by,
        created_at: now,
        finished_at: nothingToWrite ? now : null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    if (!nothingToWrite) await queueImportJob(trx, ctx.tenant.id, Number(id));
    return Number(id);
  });
}

/** The job that runs the import `importId` (server/jobs/, decision 056). */
function queueImportJob(db: Db, tenantId: string, importId: number) {
  return queueJob(db, AUDIENCE_IMPORT, { importId }, { tenantId });
}

export async function getImport(ctx: AdminScope, id: number): Promise<ImportJob> {
  const row = await tenantDb(ctx.db, ctx.tenant.id)
    .selectFrom("subscriber_imports")
    .select(JOB_COLUMNS)
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row) throw new ImportNotFound("Import not found");
  return toJob(row);
}

/** The tenant's latest imports, newest first. */
export async function recentImports(ctx: AdminScope, limit = 10): Promise<ImportJob[]> {
  const rows = await tenantDb(ctx.db, ctx.tenant.id)
    .selectFrom("subscriber_imports")
    .select(JOB_COLUMNS)
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
  return rows.map(toJob);
}

/**
 * Takes the oldest job waiting (or one whose worker went silent) for `workerId`; null if none.
 * With `only`, that job or none (the command line runs the job it queued). server/import-jobs.ts.
 */
export function claimImport(db: Db, workerId: string, now = new Date(), only?: JobRef) {
  return claimJob(db, "subscriber_imports", workerId, now, only);
}

/**
 * Queues the move of a MailerLite tenant's audience to Herald's sending; the job's id. A move
 * already waiting or running is that one; one that failed goes on from the page it stopped at.
 * A tenant not on MailerLite (or without an API key) throws ImportFileError and queues nothing.
 */
export async function queueMailerLiteMove(ctx: AdminScope, by: string): Promise<number> {
  mailerLiteToLeave(ctx.tenant);
  const db = tenantDb(ctx.db, ctx.tenant.id);
  const latest = await db
    .selectFrom("subscriber_imports")
    .select(["id", "status"])
    .where("source", "=", "mailerlite")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  if (latest && (latest.status === "queued" || latest.status === "running")) {
    return Number(latest.id);
  }
  const refusal = await importsAtOnceRefusal(ctx.db, ctx.tenant.id);
  if (refusal) throw new ImportFileError(refusal);
  return db.transaction().execute(async (trx) => {
    if (latest?.status === "failed") {
      const resumed = await trx
        .updateTable("subscriber_imports")
        .set({
          status: "queued",
          error: null,
          finished_at: null,
          claimed_by: null,
          heartbeat_at: null,
        })
        .where("id", "=", latest.id)
        .where("status", "=", "failed")
        .executeTakeFirst();
      if (Number(resumed.numUpdatedRows) === 1) {
        await queueImportJob(trx, ctx.tenant.id, Number(latest.id));
        return Number(latest.id);
      }
    }
    const { id } = await trx
      .insertInto("subscriber_imports")
      .values({
        tenant_id: ctx.tenant.id,
        file_name: "MailerLite account",
        source: "mailerlite",
        csv: "",
        status: "queued",
        created_by: by,
        created_at: new Date().toISOString(),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    await queueImportJob(trx, ctx.tenant.id, Number(id));
    return Number(id);
  });
}

/** An update of this job, while this worker holds it. */
export type JobUpdate = (on: Db) => OwnJobUpdate<"subscriber_imports">;

/** The job's updates for the worker that claimed it: they change nothing once it was taken over. */
export const importJobUpdate =
  (job: JobRef, workerId: string): JobUpdate =>
  (on) =>
    ownJobUpdate(on, "subscriber_imports", job, workerId);

/** Between two chunks: whether to go on, the job handed back to the queue when shutting down. */
export const importMayGoOn = (
  db: Db,
  job: JobRef,
  workerId: string,
  keepGoing: () => boolean,
): Promise<boolean> => mayGoOn(db, "subscriber_imports", job, workerId, keepGoing);
