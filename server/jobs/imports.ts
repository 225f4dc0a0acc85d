import type { Db } from "../db";
import { tenantDb } from "../db/tenant-guard";
import { IMPORT_STALE_MS, type JobRef } from "../import-jobs";
import { recordImportJob } from "../metrics";
import { claimArchiveImport, runArchiveImport } from "../newsletters/archive-imports";
import { runImport } from "../subscribers/import-run";
import { claimImport } from "../subscribers/imports";
import { type AnyJobDefinition, defineJob, type JobContext, RunLater } from "./definition";
import { ARCHIVE_IMPORT, AUDIENCE_IMPORT, type ImportPayload } from "./kinds";

/*
 * Audience and archive imports as jobs (decision 056). Each import keeps its own row (progress,
 * report, the rows written so far) and its own guard of every write (server/import-jobs.ts); the
 * job is what the runner claims, limited per tenant, and what /admin/jobs shows. A row another
 * worker still holds (the command line running its own import) puts the job off, not failed.
 */

/**
 * Runs one import's row as this job's try, or puts the job off while another worker holds it;
 * whether it ran (a row already finished is left as it is).
 */
async function runRow(
  ctx: JobContext,
  importId: number,
  claim: (db: Db, workerId: string, now: Date, only: JobRef) => Promise<JobRef | null>,
  run: (db: Db, job: JobRef, workerId: string, keepGoing: () => boolean) => Promise<void>,
  status: (db: Db, job: JobRef) => Promise<string | undefined>,
): Promise<boolean> {
  if (!ctx.tenantId) throw new Error("an import job names its tenant");
  const ref = { id: importId, tenantId: ctx.tenantId };
  const workerId = `job:${ctx.jobId}:${ctx.attempt}`;
  const claimed = await claim(ctx.db, workerId, new Date(), ref);
  if (!claimed) {
    const now = await status(ctx.db, ref);
    if (now === "queued" || now === "running") {
      throw new RunLater(IMPORT_STALE_MS, "the import is held by another worker");
    }
    return false;
  }
  await run(ctx.db, claimed, workerId, () => !ctx.signal.aborted);
  // Handed back part way (a shutdown): the job goes back to the queue with it.
  if ((await status(ctx.db, ref)) === "queued") ctx.signal.throwIfAborted();
  return true;
}

export const audienceImportJob: AnyJobDefinition = defineJob({
  ...AUDIENCE_IMPORT,
  concurrency: 2,
  perTenant: 1,
  async run(payload: ImportPayload, ctx) {
    const row = (db: Db, job: JobRef) =>
      tenantDb(db, job.tenantId)
        .selectFrom("subscriber_imports")
        .select(["status", "source"])
        .where("id", "=", job.id)
        .executeTakeFirst();
    const ran = await runRow(
      ctx,
      payload.importId,
      claimImport,
      (db, job, workerId, keepGoing) =>
        runImport(tenantDb(db, job.tenantId), job, workerId, keepGoing),
      async (db, job) => (await row(db, job))?.status,
    );
    if (!ran) return;
    const ended = await row(ctx.db, { id: payload.importId, tenantId: ctx.tenantId as string });
    if (ended?.status === "done" || ended?.status === "failed") {
      recordImportJob(ended.source, ended.status);
    }
  },
});

export const archiveImportJob: AnyJobDefinition = defineJob({
  ...ARCHIVE_IMPORT,
  concurrency: 2,
  perTenant: 1,
  async run(payload: ImportPayload, ctx) {
    await runRow(
      ctx,
      payload.importId,
      claimArchiveImport,
      (db, job, workerId, keepGoing) => runArchiveImport(db, job, workerId, { keepGoing }),
      async (db, job) =>
        (
          await tenantDb(db, job.tenantId)
            .selectFrom("archive_imports")
            .select("status")
            .where("id", "=", job.id)
            .executeTakeFirst()
        )?.status,
    );
  },
});
