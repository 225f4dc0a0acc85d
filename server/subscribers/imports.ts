import { hostname } from "node:os";
import { sql } from "kysely";
import type { Db } from "../db";
import type { ImportSource, SubscriberImportsTable } from "../db/schema";
import {
  claimJob,
  IMPORT_STALE_MS,
  ImportTakenOver,
  type JobRef,
  mayGoOn,
  type OwnJobUpdate,
  ownJobUpdate,
  stillOwned,
} from "../import-jobs";
import type { Logger } from "../logger";
import { recordImportJob } from "../metrics";
import { runNextArchiveImport } from "../newsletters/archive-imports";
import {
  heraldFieldsFor,
  mailerLiteToLeave,
  readMailerLitePage,
  switchToHeraldSending,
} from "../providers/mailerlite-move";
import { ProviderError } from "../providers/types";
import type { Scope } from "../scope";
import type { TenantConfig } from "../tenants/config";
import { getTenant } from "../tenants/store";
import {
  ImportFileError,
  type PreparedImport,
  prepareImport,
  type RefusedRow,
  writeImportRows,
} from "./admin";
import { foldAudienceCounts } from "./counts";
import { type FileSource, originOf, readSourceRows, withLists } from "./import-sources";
import { listTenantLists } from "./lists";

/*
 * CSV imports as jobs (issue 16): the upload is checked at once (a file without an email column is
 * refused on the spot, and the refused rows are known before anything is written), then written
 * in the background, a chunk per transaction, each chunk's progress committed with it. Staff watch
 * a progress bar; a process that dies mid-import leaves a job another process (or itself, after
 * a restart) takes over from the last committed chunk, so no row is written twice.
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
async function prepareSource(
  ctx: { db: Db; tenant: TenantConfig },
  source: FileSource,
  text: string,
  createLists: boolean,
): Promise<PreparedImport> {
  if (source === "herald") return prepareImport(ctx, text);
  const { rows, refused } = await readSourceRows(source, text);
  const lists = await listTenantLists(ctx.db, ctx.tenant);
  const defaultList = lists.find((list) => list.key === ctx.tenant.emailGroups.default) ?? lists[0];
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
  const now = new Date().toISOString();
  const nothingToWrite = rows.length === 0;
  const { id } = await ctx.db
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
  return Number(id);
}

export async function getImport(ctx: AdminScope, id: number): Promise<ImportJob> {
  const row = await ctx.db
    .selectFrom("subscriber_imports")
    .select(JOB_COLUMNS)
    .where("tenant_id", "=", ctx.tenant.id)
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row) throw new ImportNotFound("Import not found");
  return toJob(row);
}

/** The tenant's latest imports, newest first. */
export async function recentImports(ctx: AdminScope, limit = 10): Promise<ImportJob[]> {
  const rows = await ctx.db
    .selectFrom("subscriber_imports")
    .select(JOB_COLUMNS)
    .where("tenant_id", "=", ctx.tenant.id)
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

/** An update of this job, while this worker holds it. */
type JobUpdate = (on: Db) => OwnJobUpdate<"subscriber_imports">;

/**
 * Writes a claimed job's rows after the last committed chunk, a chunk per transaction, and
 * closes it as done (or failed, with the reason).
 */
export async function runImport(
  db: Db,
  job: JobRef,
  workerId: string,
  keepGoing: () => boolean = () => true,
): Promise<void> {
  const ctx = { db, tenant: (await getTenant(db, job.tenantId)).config };
  const mine: JobUpdate = (on) => ownJobUpdate(on, "subscriber_imports", job, workerId);
  const row = await db
    .selectFrom("subscriber_imports")
    .select(["csv", "done_through_line", "source", "cursor", "done_rows", "created_by", "refused"])
    .where("tenant_id", "=", job.tenantId)
    .where("id", "=", job.id)
    .executeTakeFirstOrThrow();
  if (row.source === "mailerlite") {
    return runMailerLiteMove(ctx, row, job, workerId, keepGoing);
  }
  const origin = originOf(row.source);
  try {
    // Checked again: a list named by a row may have gone since the upload.
    const { rows, refused, defaultList } = await prepareSource(ctx, row.source, row.csv, true);
    await mine(db)
      .set({
        total_rows: rows.length,
        refused_count: refused.length,
        refused: JSON.stringify(refused.slice(0, REFUSED_ROWS_KEPT)),
      })
      .execute();
    const todo = rows.filter((each) => each.line > Number(row.done_through_line));
    for (let start = 0; start < todo.length; start += IMPORT_CHUNK_ROWS) {
      // Shutting down: the job waits for the next worker, from the last chunk written.
      if (!(await mayGoOn(db, "subscriber_imports", job, workerId, keepGoing))) return;
      const chunk = todo.slice(start, start + IMPORT_CHUNK_ROWS);
      const now = new Date().toISOString();
      await db.transaction().execute(async (trx) => {
        const counts = await writeImportRows(trx, job.tenantId, chunk, defaultList, now, {
          origin,
        });
        const saved = await mine(trx)
          .set({
            done_rows: sql<number>`done_rows + ${chunk.length}`,
            done_through_line: chunk[chunk.length - 1]?.line ?? 0,
            created: sql<number>`created + ${counts.created}`,
            updated: sql<number>`updated + ${counts.updated}`,
            kept_unsubscribed: sql<number>`kept_unsubscribed + ${counts.keptUnsubscribed}`,
            heartbeat_at: now,
          })
          .executeTakeFirst();
        stillOwned(saved);
      });
    }
    await foldAudienceCounts(db, job.tenantId);
    await mine(db)
      .set({ status: "done", csv: "", finished_at: new Date().toISOString(), claimed_by: null })
      .execute();
  } catch (error) {
    if (error instanceof ImportTakenOver) return;
    const message =
      error instanceof ImportFileError
        ? error.message
        : "The import stopped on a database error. The rows written so far are kept; import the file again to finish (rows already written are only updated).";
    await mine(db)
      .set({
        status: "failed",
        error: message,
        csv: "",
        finished_at: new Date().toISOString(),
        claimed_by: null,
      })
      .execute();
    if (!(error instanceof ImportFileError)) throw error;
  }
}

/**
 * Queues the move of a MailerLite tenant's audience to Herald's sending; the job's id. A move
 * already waiting or running is that one; one that failed goes on from the page it stopped at.
 * A tenant not on MailerLite (or without an API key) throws ImportFileError and queues nothing.
 */
export async function queueMailerLiteMove(ctx: AdminScope, by: string): Promise<number> {
  mailerLiteToLeave(ctx.tenant);
  const latest = await ctx.db
    .selectFrom("subscriber_imports")
    .select(["id", "status"])
    .where("tenant_id", "=", ctx.tenant.id)
    .where("source", "=", "mailerlite")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  if (latest && (latest.status === "queued" || latest.status === "running")) {
    return Number(latest.id);
  }
  if (latest?.status === "failed") {
    const resumed = await ctx.db
      .updateTable("subscriber_imports")
      .set({
        status: "queued",
        error: null,
        finished_at: null,
        claimed_by: null,
        heartbeat_at: null,
      })
      .where("tenant_id", "=", ctx.tenant.id)
      .where("id", "=", latest.id)
      .where("status", "=", "failed")
      .executeTakeFirst();
    if (Number(resumed.numUpdatedRows) === 1) return Number(latest.id);
  }
  const { id } = await ctx.db
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
  return Number(id);
}

/** The higher of the job's total and what it wrote plus `more` (an account grows meanwhile). */
const totalAtLeast = (more: number) =>
  sql<number>`case when total_rows < done_rows + ${more} then done_rows + ${more} else total_rows end`;

/**
 * A MailerLite move (queueMailerLiteMove): the account's pages from the saved cursor, each written
 * with its progress and the next cursor in one transaction; at the end, if nobody was refused,
 * the tenant's provider switches to builtin. MailerLite failing (after the client's retries)
 * stops the job with what was written kept and the tenant left on MailerLite.
 */
async function runMailerLiteMove(
  ctx: { db: Db; tenant: TenantConfig },
  row: { cursor: string | null; done_rows: number; created_by: string; refused: string },
  job: JobRef,
  workerId: string,
  keepGoing: () => boolean,
): Promise<void> {
  const { db, tenant } = ctx;
  const mine: JobUpdate = (on) => ownJobUpdate(on, "subscriber_imports", job, workerId);
  let written = Number(row.done_rows);
  const refused = JSON.parse(row.refused) as RefusedRow[];
  try {
    const provider = mailerLiteToLeave(tenant);
    const total = await provider.countSubscribers();
    await mine(db).set({ total_rows: total }).execute();
    await mine(db)
      .set({ total_rows: totalAtLeast(0) })
      .execute();
    const fields = await heraldFieldsFor(db, tenant.id, provider);
    let cursor = row.cursor;
    for (;;) {
      if (!(await mayGoOn(db, "subscriber_imports", job, workerId, keepGoing))) return;
      // Alive before each page: only a page MailerLite holds up past IMPORT_STALE_MS lets another
      // worker take over (this one's write then fails the claim check and is rolled back).
      const alive = await mine(db)
        .set({ heartbeat_at: new Date().toISOString() })
        .executeTakeFirst();
      if (Number(alive.numUpdatedRows) !== 1) return;
      const firstLine = written + refused.length + 1;
      const page = await readMailerLitePage(db, tenant, provider, fields, cursor, firstLine);
      const now = new Date().toISOString();
      refused.push(...page.refused);
      await db.transaction().execute(async (trx) => {
        const counts = await writeImportRows(trx, tenant.id, page.rows, undefined, now, {
          origin: "mailerlite",
        });
        const saved = await mine(trx)
          .set({
            done_rows: sql<number>`done_rows + ${page.rows.length}`,
            total_rows: totalAtLeast(page.rows.length),
            created: sql<number>`created + ${counts.created}`,
            updated: sql<number>`updated + ${counts.updated}`,
            kept_unsubscribed: sql<number>`kept_unsubscribed + ${counts.keptUnsubscribed}`,
            refused_count: sql<number>`refused_count + ${page.refused.length}`,
            refused: JSON.stringify(refused.slice(0, REFUSED_ROWS_KEPT)),
            cursor: page.next,
            heartbeat_at: now,
          })
          .executeTakeFirst();
        stillOwned(saved);
      });
      written += page.rows.length;
      if (!page.next) break;
      cursor = page.next;
    }
    await foldAudienceCounts(db, tenant.id);
    const finished = new Date().toISOString();
    if (refused.length > 0) {
      await mine(db)
        .set({
          status: "done",
          error: `${tenant.name} stays on MailerLite: ${refused.length} of its subscribers could not be brought across (see below). Correct them in MailerLite and move again.`,
          finished_at: finished,
          claimed_by: null,
        })
        .execute();
      return;
    }
    await switchToHeraldSending(db, tenant.id, row.created_by);
    await mine(db).set({ status: "done", finished_at: finished, claimed_by: null }).execute();
  } catch (error) {
    if (error instanceof ImportTakenOver) return;
    const message =
      error instanceof ProviderError || error instanceof ImportFileError
        ? `MailerLite stopped answering (${error.message}). The ${written} subscribers brought across so far are kept and ${tenant.name} stays on MailerLite; move again to go on from where it stopped.`
        : `The move stopped on an error. The ${written} subscribers brought across so far are kept and ${tenant.name} stays on MailerLite; move again to go on from where it stopped.`;
    await mine(db)
      .set({
        status: "failed",
        error: message,
        finished_at: new Date().toISOString(),
        claimed_by: null,
      })
      .execute();
    if (!(error instanceof ProviderError || error instanceof ImportFileError)) throw error;
  }
}

const IDLE_POLL_MS = 1_000;

/**
 * Runs queued imports one at a time, beside the campaign sender (in the web process, or in
 * `herald worker` when SEND_WORKER=off).
 */
export class ImportWorker {
  readonly id = `${hostname()}:${process.pid}:imports:${Math.random().toString(36).slice(2, 8)}`;
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;

  constructor(private readonly options: { db: Db; logger: Logger }) {}

  start(): this {
    if (this.running) return this;
    this.running = true;
    this.loop = this.run();
    return this;
  }

  /** Ends the loop after the chunk in hand; a job left running is taken over once stale. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  /** Look now (a file was just queued) instead of at the next poll. */
  poke(): void {
    this.wake?.();
  }

  /** One job, if one waits; whether there was one. */
  async tick(): Promise<boolean> {
    const job = await claimImport(this.options.db, this.id);
    if (!job) return this.archiveTick();
    const started = Date.now();
    await runImport(this.options.db, job, this.id, () => this.running);
    const ended = await this.options.db
      .selectFrom("subscriber_imports")
      .select(["status", "source"])
      .where("tenant_id", "=", job.tenantId)
      .where("id", "=", job.id)
      .executeTakeFirst();
    // A job stopped part way (a shutdown) is neither: another round finishes it.
    if (ended?.status === "done" || ended?.status === "failed") {
      recordImportJob(ended.source, ended.status);
    }
    this.options.logger.info({ importId: job.id, ms: Date.now() - started }, "import finished");
    return true;
  }

  /** Newsletters from Ghost or Substack (server/newsletters/archive-imports.ts) take turns with CSVs. */
  private async archiveTick(): Promise<boolean> {
    const started = Date.now();
    const job = await runNextArchiveImport(this.options.db, this.id, () => this.running);
    if (job)
      this.options.logger.info(
        { archiveImportId: job.id, ms: Date.now() - started },
        "archive import finished",
      );
    return job !== null;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let worked = false;
      try {
        worked = await this.tick();
      } catch (error) {
        this.options.logger.error({ err: error }, "import worker tick failed");
      }
      if (!worked && this.running) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          setTimeout(resolve, IDLE_POLL_MS).unref();
        });
        this.wake = null;
      }
    }
  }
}
