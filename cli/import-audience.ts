/**
 * `herald import ghost-members FILE --tenant T`, `import substack-members FILE --tenant T` and
 * `import mailerlite --tenant T` (issue 33, target 3): the imports page's jobs from the command
 * line. The job is queued like an upload and run here, its progress printed as it goes; a server's
 * import worker that takes it first runs it instead, and this command follows its progress.
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { parseArgs } from "node:util";
import type { Db } from "../server/db";
import { type Scope, tenantScope } from "../server/scope";
import { ImportFileError } from "../server/subscribers/import-rows";
import { runImport } from "../server/subscribers/import-run";
import { decodeSourceUpload } from "../server/subscribers/import-sources";
import {
  claimImport,
  getImport,
  type ImportJob,
  queueImport,
  queueMailerLiteMove,
} from "../server/subscribers/imports";
import { getTenant } from "../server/tenants/store";

export const AUDIENCE_IMPORTS = new Set(["ghost-members", "substack-members", "mailerlite"]);

export const AUDIENCE_IMPORT_USAGE = `  import ghost-members FILE --tenant T
                                import a Ghost members CSV into tenant T: labels become lists,
                                members not subscribed to emails stay unsubscribed; nobody is
                                emailed
  import substack-members FILE --tenant T
                                import Substack's email list (its CSV, or the export zip)
  import mailerlite --tenant T  move tenant T's MailerLite audience to Herald (status, fields,
                                groups as lists); when everyone came across, T sends with
                                Herald; run again to go on after a failure`;

/** What the command line runs as: the staff column of the job and the tenant change's actor. */
const ACTOR = "herald command line";

const progressLine = (job: ImportJob) =>
  `${job.status === "queued" ? "waiting" : job.status}: ${job.doneRows} of ${job.totalRows} written, ${job.refusedCount} refused`;

function summary(job: ImportJob): string {
  const lines = [
    job.status === "done"
      ? `Imported ${job.doneRows} of ${job.totalRows}: ${job.created} new, ${job.updated} updated, ${job.keptUnsubscribed} kept as they were (they had left), ${job.refusedCount} refused. No email was sent.`
      : `Stopped after ${job.doneRows} of ${job.totalRows}: ${job.error ?? "unknown error"}`,
  ];
  if (job.status === "done" && job.error) lines.push(job.error);
  for (const row of job.refused.slice(0, 20)) {
    lines.push(`  refused row ${row.line} (${row.email || "no email"}): ${row.reason}`);
  }
  if (job.refusedCount > 20) lines.push(`  … and ${job.refusedCount - 20} more refused rows.`);
  return lines.join("\n");
}

/** The command's scope: the tenant it names, its database bound to that tenant. */
type CommandScope = Pick<Scope, "db" | "tenantId" | "tenant">;

/** Runs the job here if no other worker took it, printing its progress; its final state. */
async function follow(scope: CommandScope, id: number): Promise<ImportJob> {
  const { db, tenantId } = scope;
  const workerId = `cli:${process.pid}`;
  let last = "";
  const print = async () => {
    const line = progressLine(await getImport(scope, id));
    if (line !== last) console.log(line);
    last = line;
  };
  const ticker = setInterval(() => void print(), 1_000);
  try {
    const claimed = await claimImport(db, workerId, new Date(), { id, tenantId });
    if (claimed) {
      await runImport(db, claimed, workerId);
    } else {
      // A server's worker has it: wait for it to finish.
      for (;;) {
        const job = await getImport(scope, id);
        if (job.status === "done" || job.status === "failed") break;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  } finally {
    clearInterval(ticker);
  }
  return getImport(scope, id);
}

export async function audienceImportCommand(
  args: string[],
  withDb: <T>(work: (db: Db) => Promise<T>) => Promise<T>,
): Promise<number> {
  const [kind, ...rest] = args;
  let parsed: ReturnType<typeof parse>;
  const parse = () =>
    parseArgs({ args: rest, options: { tenant: { type: "string" } }, allowPositionals: true });
  try {
    parsed = parse();
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${AUDIENCE_IMPORT_USAGE}`);
    return 1;
  }
  const tenantId = parsed.values.tenant;
  const [file, ...extra] = parsed.positionals;
  if (!tenantId) {
    console.error(`--tenant is required.\n\n${AUDIENCE_IMPORT_USAGE}`);
    return 1;
  }
  if (kind === "mailerlite" ? file !== undefined : !file || extra.length > 0) {
    console.error(`Unexpected arguments.\n\n${AUDIENCE_IMPORT_USAGE}`);
    return 1;
  }
  let bytes: Uint8Array | null = null;
  if (file) {
    try {
      bytes = new Uint8Array(readFileSync(file));
    } catch {
      console.error(`Cannot read ${file}.`);
      return 1;
    }
  }
  return withDb(async (db) => {
    const tenant = await db
      .selectFrom("tenants")
      .select("id")
      .where("id", "=", tenantId)
      .executeTakeFirst();
    if (!tenant) {
      console.error(`No tenant ${tenantId}.`);
      return 1;
    }
    const scope = tenantScope({ db, tenantId, tenant: (await getTenant(db, tenantId)).config });
    let id: number;
    try {
      if (kind === "mailerlite") {
        id = await queueMailerLiteMove(scope, ACTOR);
      } else {
        const source = kind === "ghost-members" ? "ghost" : "substack";
        const text = decodeSourceUpload(source, bytes as Uint8Array);
        id = await queueImport(scope, ACTOR, basename(file as string), text, source);
      }
    } catch (error) {
      if (error instanceof ImportFileError) {
        console.error(error.message);
        return 1;
      }
      throw error;
    }
    console.log(`Import ${id} queued for ${tenantId}.`);
    const job = await follow(scope, id);
    console.log(summary(job));
    return job.status === "done" && !job.error ? 0 : 1;
  });
}
