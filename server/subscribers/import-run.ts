import { sql } from "kysely";
import type { Db } from "../db";
import { tenantDb } from "../db/tenant-guard";
import { ImportTakenOver, type JobRef, stillOwned } from "../import-jobs";
import {
  heraldFieldsFor,
  mailerLiteToLeave,
  readMailerLitePage,
  switchToHeraldSending,
} from "../providers/mailerlite-move";
import { ProviderError } from "../providers/types";
import type { TenantConfig } from "../tenants/config";
import { getTenant } from "../tenants/store";
import { foldAudienceCounts } from "./counts";
import { newSubscribersRefusal } from "./import-limits";
import { ImportFileError, type RefusedRow } from "./import-rows";
import { originOf } from "./import-sources";
import { writeImportRows } from "./import-write";
import {
  IMPORT_CHUNK_ROWS,
  importJobUpdate,
  importMayGoOn,
  prepareSource,
  REFUSED_ROWS_KEPT,
} from "./imports";

/*
 * Running a claimed import job (imports.ts queued it, import-worker.ts or the command line runs
 * it): a file's rows, or a MailerLite account's pages, a chunk per transaction with the job's
 * progress, so a job stopped anywhere goes on after its last chunk.
 */

/**
 * Writes a claimed job's rows after the last committed chunk, a chunk per transaction, and
 * closes it as done (or failed, with the reason). Everything it reads and writes is the job's
 * tenant's: it runs on the database bound to that tenant.
 */
export async function runImport(
  root: Db,
  job: JobRef,
  workerId: string,
  keepGoing: () => boolean = () => true,
): Promise<void> {
  const db = tenantDb(root, job.tenantId);
  const ctx = { db, tenant: (await getTenant(db, job.tenantId)).config };
  const mine = importJobUpdate(job, workerId);
  const row = await db
    .selectFrom("subscriber_imports")
    .select(["csv", "done_through_line", "source", "cursor", "done_rows", "created_by", "refused"])
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
    // The subscriber limit, again before the first row (others may have signed up meanwhile):
    // refused whole rather than cut off half-way (decision 057).
    if (Number(row.done_through_line) === 0) {
      const emails = todo.map((each) => each.email);
      const refusal = await newSubscribersRefusal(db, job.tenantId, emails);
      if (refusal) throw new ImportFileError(refusal);
    }
    for (let start = 0; start < todo.length; start += IMPORT_CHUNK_ROWS) {
      // Shutting down: the job waits for the next worker, from the last chunk written.
      if (!(await importMayGoOn(db, job, workerId, keepGoing))) return;
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
  const mine = importJobUpdate(job, workerId);
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
      if (!(await importMayGoOn(db, job, workerId, keepGoing))) return;
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
