/**
 * `herald backup --to DIR` and `herald restore --from DIR` (README, Backups and restore; the work
 * is in server/backups/).
 */
import { parseArgs } from "node:util";
import { BackupError } from "../server/backups/manifest";
import { restoreSnapshot } from "../server/backups/restore";
import { writeSnapshot } from "../server/backups/snapshot";
import { createDb } from "../server/db";
import { getEnv } from "../server/env";

function optionOf(
  args: string[],
  name: "to" | "from",
  flags: readonly "allow-unsigned"[] = [],
): { dir: string; flags: Set<string> } | null {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: {
        [name]: { type: "string" },
        ...Object.fromEntries(flags.map((flag) => [flag, { type: "boolean" as const }])),
      },
      allowPositionals: true,
    });
    const value = values[name];
    if (positionals.length > 0 || typeof value !== "string" || value.trim() === "") return null;
    return { dir: value, flags: new Set(flags.filter((flag) => values[flag] === true)) };
  } catch {
    return null;
  }
}

/** A BackupError is the operator's to read: its message alone, no stack. */
function reported(error: unknown): number {
  if (error instanceof BackupError) {
    console.error(error.message);
    return 1;
  }
  throw error;
}

export async function backupCommand(args: string[]): Promise<number> {
  const dir = optionOf(args, "to")?.dir;
  if (!dir) {
    console.error("Usage: npm run herald -- backup --to DIR");
    return 1;
  }
  const env = getEnv();
  const db = createDb(env.DATABASE_URL);
  try {
    const snapshot = await writeSnapshot({ databaseUrl: env.DATABASE_URL, db, dir });
    const files = snapshot.manifest.files.length - 1;
    console.log(
      `Snapshot written to ${snapshot.dir}: the ${snapshot.manifest.dialect === "sqlite" ? "SQLite" : "PostgreSQL"} database and ${files} uploaded file${files === 1 ? "" : "s"}, ${snapshot.bytes} bytes.`,
    );
    if (snapshot.manifest.secretKeyIds.length > 0) {
      console.log(
        `Its sealed secrets need the secret key with id ${snapshot.manifest.secretKeyIds.join(", ")}, which is not in the snapshot: keep HERALD_SECRET_KEY (or data/secret-key) safe elsewhere.`,
      );
    }
    return 0;
  } catch (error) {
    return reported(error);
  } finally {
    await db.destroy();
  }
}

export async function restoreCommand(args: string[]): Promise<number> {
  const options = optionOf(args, "from", ["allow-unsigned"]);
  if (!options) {
    console.error("Usage: npm run herald -- restore --from DIR [--allow-unsigned]");
    return 1;
  }
  const env = getEnv();
  try {
    const restored = await restoreSnapshot({
      databaseUrl: env.DATABASE_URL,
      dir: options.dir,
      allowUnsigned: options.flags.has("allow-unsigned"),
    });
    console.log(
      `Restored the snapshot of ${restored.manifest.createdAt} (Herald ${restored.manifest.heraldVersion}): the database and ${restored.files} uploaded file${restored.files === 1 ? "" : "s"}. Start Herald to apply any newer migrations.`,
    );
    for (const warning of restored.warnings) console.warn(`Warning: ${warning}`);
    return 0;
  } catch (error) {
    return reported(error);
  }
}
