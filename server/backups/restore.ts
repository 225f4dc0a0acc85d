import { readFile, rm, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import SQLite from "better-sqlite3";
import { createDb, dialectOf } from "../db";
import { getEnv } from "../env";
import {
  CONTENT_TYPES,
  type FileBackend,
  fileStoreFor,
  type StoredExtension,
} from "../files/store";
import { existingSecretBox } from "../secret-box";
import {
  BackupError,
  FILES_DIR,
  type Manifest,
  PGDUMP_FILE,
  SQLITE_FILE,
  verifySnapshot,
  verifySnapshotSignature,
} from "./manifest";
import { checkPgTool, emptyPublicSchema, publicTables, restoreDatabase } from "./postgres";

/*
 * `herald restore --from DIR` (docs/decisions/029-backups.md): a snapshot back into an empty
 * database and an empty file store. Everything is checked before anything is written: the
 * snapshot against its manifest, the database and the store for emptiness. The migrations of a
 * later Herald apply on top when the site starts.
 */

export interface Restored {
  manifest: Manifest;
  files: number;
  /** for the operator: the secret key cannot open what the snapshot sealed */
  warnings: string[];
}

export async function restoreSnapshot(options: {
  databaseUrl: string;
  dir: string;
  /** take a snapshot whose manifest has no signature (made before issue 44) */
  allowUnsigned?: boolean;
}): Promise<Restored> {
  const dir = resolve(options.dir);
  const signature = await verifySnapshotSignature(dir, existingSecretBox(getEnv()), {
    allowUnsigned: options.allowUnsigned ?? false,
  });
  const manifest = await verifySnapshot(dir);
  const dialect = dialectOf(options.databaseUrl);
  if (manifest.dialect !== dialect) {
    throw new BackupError(
      `The snapshot is of a ${manifest.dialect === "sqlite" ? "SQLite" : "PostgreSQL"} database and DATABASE_URL is ${dialect === "sqlite" ? "SQLite" : "PostgreSQL"}: restore it into the same kind of database (moving tenants between the two is \`herald tenant export\` and \`import\`).`,
    );
  }
  if (dialect === "sqlite") await refuseNonEmptySqlite(options.databaseUrl);
  else await refuseNonEmptyPostgres(options.databaseUrl);
  const keys = manifest.files
    .filter((file) => file.path.startsWith(`${FILES_DIR}/`))
    .map((file) => file.path.slice(FILES_DIR.length + 1));

  const db = createDb(options.databaseUrl);
  let restored = false;
  try {
    const store = fileStoreFor(db);
    // PostgreSQL's own store is in the (empty) database; S3 and the disk are looked at now.
    if (store.kind !== "database") await refuseNonEmptyStore(store);
    // The database first (the PostgreSQL store of files is in it), then the files.
    restored = true;
    if (dialect === "sqlite") await restoreSqlite(options.databaseUrl, join(dir, SQLITE_FILE));
    else await restoreDatabase(options.databaseUrl, join(dir, PGDUMP_FILE));
    for (const key of keys) {
      const extension = key.slice(key.lastIndexOf(".") + 1) as StoredExtension;
      await store.write(key, await readFile(join(dir, FILES_DIR, key)), CONTENT_TYPES[extension]);
    }
  } catch (error) {
    await db.destroy();
    // Leave the database as empty as it was (pg_restore itself is all or nothing).
    if (restored && dialect === "sqlite") await removeSqlite(options.databaseUrl);
    else if (restored) await emptyPublicSchema(options.databaseUrl);
    throw error;
  }
  await db.destroy();
  const unsigned =
    signature === "signed"
      ? []
      : [
          "The snapshot's manifest is not signed under a key this install has: it was restored because --allow-unsigned was given.",
        ];
  return { manifest, files: keys.length, warnings: [...unsigned, ...secretKeyWarnings(manifest)] };
}

const sqlitePath = (url: string) => resolve(url.replace(/^file:/, ""));

/** An empty SQLite database: no file, or one without a table (a file Herald created but never migrated). */
async function refuseNonEmptySqlite(url: string): Promise<void> {
  const path = sqlitePath(url);
  const size = await stat(path).then(
    (found) => found.size,
    () => null,
  );
  let tables = 0;
  if (size !== null && size > 0) {
    const database = new SQLite(path, { readonly: true, fileMustExist: true });
    try {
      tables = (
        database.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as {
          n: number;
        }
      ).n;
    } finally {
      database.close();
    }
  }
  const wal = await stat(`${path}-wal`).then(
    (found) => found.size,
    () => 0,
  );
  if (tables > 0 || wal > 0) {
    throw new BackupError(
      `The database ${path} is not empty: restore only into an empty database (a new file). Nothing was restored.`,
    );
  }
}

async function refuseNonEmptyPostgres(url: string): Promise<void> {
  const { tables, serverMajor } = await publicTables(url);
  if (tables.length > 0) {
    const database = new URL(url).pathname.slice(1);
    throw new BackupError(
      `The database ${database} is not empty (${tables.length} tables): restore only into an empty database (createdb a new one). Nothing was restored.`,
    );
  }
  await checkPgTool("pg_restore", serverMajor);
}

async function refuseNonEmptyStore(store: FileBackend): Promise<void> {
  for await (const key of store.keys()) {
    throw new BackupError(
      `The file store (${store.kind}) is not empty (it holds ${key}, and maybe more): restore only into an empty store. Nothing was restored.`,
    );
  }
}

/**
 * The snapshot's pages into the (empty) database file through SQLite's backup API, read-only from
 * the snapshot: the file keeps its owner-only mode, and a connection already open on it sees them.
 */
async function restoreSqlite(url: string, snapshotFile: string): Promise<void> {
  const snapshot = new SQLite(snapshotFile, { readonly: true, fileMustExist: true });
  try {
    await snapshot.backup(sqlitePath(url), { progress: () => 0x7fffffff });
  } finally {
    snapshot.close();
  }
}

async function removeSqlite(url: string): Promise<void> {
  const path = sqlitePath(url);
  for (const file of [path, `${path}-wal`, `${path}-shm`]) await rm(file, { force: true });
}

/** What to tell the operator when this install's key cannot open what the snapshot sealed. */
function secretKeyWarnings(manifest: Manifest): string[] {
  if (manifest.secretKeyIds.length === 0) return [];
  const box = existingSecretBox(getEnv());
  const unknown = manifest.secretKeyIds.filter((id) => !box?.knows(id));
  if (unknown.length === 0) return [];
  const current = box
    ? `HERALD_SECRET_KEY (here key id ${box.keyId}) nor HERALD_SECRET_KEY_PREVIOUS opens`
    : "no secret key is set here (HERALD_SECRET_KEY, or the file data/secret-key) to open";
  return [
    `The snapshot's sealed secrets (two-factor sign-in, DKIM keys, webhook secrets) need the secret key with id ${unknown.join(", ")}, and ${current} them. Set HERALD_SECRET_KEY to the key the backed-up install used (or put it in data/secret-key) before starting Herald: without it those secrets cannot be read.`,
  ];
}
