/**
 * `herald tenant export|import`: one tenant moved between installs (docs/decisions/030-moving-a-tenant.md).
 */
import { readFile, rename, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import type { Db } from "../server/db";
import { ArchiveError } from "../server/tenants/move/archive";
import { exportTenant, TenantExportError } from "../server/tenants/move/export";
import { importTenant, TenantImportError } from "../server/tenants/move/import";

export const TENANT_USAGE = `  tenant export ID --to FILE    write one tenant (its rows in every table, its files, sealed
                                secrets) to a zip archive FILE
  tenant import FILE [--as NEW_ID] [--domain DOMAIN|none] [--without-secrets] [--allow-unsigned]
                                add the archive's tenant to this install in one transaction;
                                refused if its id or domain is taken here, if its manifest is not
                                signed under HERALD_SECRET_KEY(_PREVIOUS) here (unsigned, from
                                before: only with --allow-unsigned), or if its secrets' key is not
                                HERALD_SECRET_KEY(_PREVIOUS) here`;

type WithDb = <T>(work: (db: Db) => Promise<T>) => Promise<T>;

const refusal = (error: unknown) =>
  error instanceof TenantImportError ||
  error instanceof TenantExportError ||
  error instanceof ArchiveError;

export async function tenantCommand(args: string[], withDb: WithDb): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      to: { type: "string" },
      as: { type: "string" },
      domain: { type: "string" },
      "without-secrets": { type: "boolean" },
      "allow-unsigned": { type: "boolean" },
    },
  });
  try {
    if (sub === "export") {
      const [id] = positionals;
      if (!id || positionals.length > 1 || !values.to) {
        console.error("Usage: tenant export ID --to FILE");
        return 1;
      }
      const target = resolve(values.to);
      return await withDb(async (db) => {
        const result = await exportTenant(db, id);
        // Written whole, then renamed: a half-written archive never has the final name.
        await writeFile(`${target}.partial`, result.archive, { mode: 0o600 });
        await rename(`${target}.partial`, target);
        const rows = Object.values(result.tables).reduce((sum, n) => sum + n, 0);
        console.log(
          `Exported tenant ${id} to ${target}: ${rows} rows in ${Object.keys(result.tables).length} tables, ${result.files} files, ${result.secrets} sealed secrets (${result.archive.length} bytes).`,
        );
        return 0;
      });
    }
    if (sub === "import") {
      const [file] = positionals;
      if (!file || positionals.length > 1) {
        console.error(
          "Usage: tenant import FILE [--as NEW_ID] [--domain DOMAIN|none] [--without-secrets] [--allow-unsigned]",
        );
        return 1;
      }
      const zip = await readFile(resolve(file));
      return await withDb(async (db) => {
        const result = await importTenant(db, zip, {
          as: values.as,
          domain:
            values.domain === undefined
              ? undefined
              : values.domain === "none"
                ? null
                : values.domain,
          withoutSecrets: values["without-secrets"] ?? false,
          allowUnsigned: values["allow-unsigned"] ?? false,
        });
        const rows = Object.values(result.tables).reduce((sum, n) => sum + n, 0);
        console.log(
          `Imported tenant ${result.tenantId}: ${rows} rows, ${result.files} files, secrets: ${result.secrets === "left out" ? "left out (--without-secrets): generate a DKIM key and paste the webhook secret again" : `${result.secrets} re-sealed`}.`,
        );
        if (result.renamedIds > 0)
          console.log(
            `${result.renamedIds} newsletter or campaign ids were taken here and were given new ones.`,
          );
        for (const cleared of result.bylinesCleared) {
          console.log(
            `No staff user ${cleared.authorEmail} here: "${cleared.newsletter}" ${cleared.keptName ? `is signed "${cleared.keptName}", linked to no account` : "has no byline"} (invite them and set it again).`,
          );
        }
        return 0;
      });
    }
  } catch (error) {
    if (!refusal(error)) throw error;
    console.error(`Refused: ${(error as Error).message}`);
    return 2;
  }
  console.error(`Unknown tenant command: ${sub ?? "(none)"}\n\n${TENANT_USAGE}`);
  return 1;
}
