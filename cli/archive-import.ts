/**
 * `herald import ghost FILE --tenant T` and `herald import substack FILE --tenant T`: newsletters
 * from another platform's archive, through the same job as the staff page
 * (server/newsletters/archive-imports.ts). The command runs its job itself and prints the progress;
 * if it dies, a worker takes the job over where it stopped.
 */
import { readFile } from "node:fs/promises";
import { hostname } from "node:os";
import { basename } from "node:path";
import { parseArgs } from "node:util";
import type { Db } from "../server/db";
import {
  ArchiveFileError,
  getArchiveImport,
  queueArchiveImport,
  runArchiveImport,
} from "../server/newsletters/archive-imports";
import { tenantScope } from "../server/scope";
import { getTenant, getTenantDirectory } from "../server/tenants/store";
import { archiveImportFormSchema } from "../shared/schemas/archive-import";

export const ARCHIVE_IMPORT_USAGE = `  import ghost FILE --tenant T [--site URL]
                                newsletters from a Ghost JSON export into tenant T (posts with
                                tags, authors, dates, slugs and images; --site: the old site's
                                address, for images the export names by path)
  import substack FILE --tenant T
                                newsletters from a Substack export zip into tenant T`;

export async function archiveImportCommand(
  args: string[],
  withDb: <T>(work: (db: Db) => Promise<T>) => Promise<T>,
): Promise<number> {
  const [source, ...rest] = args;
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(rest);
  } catch (error) {
    console.error((error as Error).message);
    return 1;
  }
  const { values, positionals } = parsed;
  const fields = archiveImportFormSchema.safeParse({ source, siteUrl: values.site });
  if (!fields.success || positionals.length !== 1 || !values.tenant) {
    console.error(
      `Usage:\n${ARCHIVE_IMPORT_USAGE}\n${fields.success ? "" : fields.error.issues.map((issue) => issue.message).join("\n")}`,
    );
    return 1;
  }
  const file = positionals[0] as string;
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(file));
  } catch (error) {
    console.error(`Cannot read ${file}: ${(error as Error).message}`);
    return 1;
  }
  const tenantId = values.tenant;
  return withDb(async (db) => {
    // getTenant falls back to the default tenant: a mistyped id must not import into it.
    if (!(await getTenantDirectory(db)).ids.has(tenantId)) {
      console.error(`No tenant with id ${tenantId}.`);
      return 1;
    }
    const tenant = await getTenant(db, tenantId);
    const ctx = tenantScope({ db, tenantId, tenant: tenant.config });
    const runner = `${hostname()}:${process.pid}:cli-import`;
    let id: number;
    try {
      id = await queueArchiveImport(ctx, "herald import (command line)", {
        source: fields.data.source,
        fileName: basename(file),
        bytes,
        siteUrl: fields.data.siteUrl || null,
        runner,
      });
    } catch (error) {
      if (error instanceof ArchiveFileError) {
        console.error(error.message);
        return 1;
      }
      throw error;
    }
    const queued = await getArchiveImport(ctx, id);
    console.log(
      `Import ${id}: ${queued.totalPosts} posts to write, ${queued.skippedCount} skipped on reading.`,
    );
    const started = Date.now();
    let shown = 0;
    if (queued.status === "running") {
      await runArchiveImport(ctx.db, { id, tenantId }, runner, {
        onProgress: (done, total) => {
          // A line per tenth, and the last: enough to watch, not a flood.
          if (done === total || done - shown >= Math.max(1, Math.ceil(total / 10))) {
            shown = done;
            console.log(`  ${done} of ${total} posts`);
          }
        },
      });
    }
    const job = await getArchiveImport(ctx, id);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `Imported ${job.imported} newsletters, skipped ${job.skippedCount} posts, ${job.warnings.length} notes (${seconds} s).`,
    );
    for (const skipped of job.skipped) console.log(`  skipped: ${skipped.item}: ${skipped.reason}`);
    for (const warning of job.warnings) console.log(`  note: ${warning.item}: ${warning.message}`);
    if (job.status === "failed") {
      console.error(job.error);
      return 1;
    }
    return 0;
  });
}

function parseOptions(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: { tenant: { type: "string" }, site: { type: "string" } },
  });
}
