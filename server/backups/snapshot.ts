import { chmod, mkdir, readdir, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { type Db, dialectOf } from "../db";
import type { Database } from "../db/schema";
import { type FileBackend, fileStoreFor } from "../files/store";
import { getSecretBox } from "../secret-box";
import { keyIdsInUse } from "../secrets-at-rest";
import { signManifest } from "../signed-manifest";
import { heraldVersion } from "../version";
import {
  BackupError,
  describeFiles,
  FILES_DIR,
  MANIFEST_FILE,
  type Manifest,
  newManifest,
  PGDUMP_FILE,
  SQLITE_FILE,
} from "./manifest";
import { checkPgTool, dumpDatabase, inExportedSnapshot } from "./postgres";

/*
 * `herald backup` and the scheduled snapshots (docs/decisions/029-backups.md): a consistent copy of
 * the database taken while the site serves and sends, then every uploaded file. Files are
 * write-once ({tenant}/{random}.{ext}, never changed), so every file a row of the snapshot names
 * was stored before the snapshot was taken and is still there when the files are copied after it.
 */

export const HERALD_VERSION: string = heraldVersion();

/** Pages copied per step of SQLite's backup (4 MiB of 4 KiB pages): a few ms of the event loop each. */
const BACKUP_STEP_PAGES = 1000;

export interface Snapshot {
  dir: string;
  manifest: Manifest;
  /** the snapshot's size on disk: its files and the manifest */
  bytes: number;
}

/** Refuses a directory that exists and holds anything; makes it otherwise. Whether it made it. */
export async function prepareEmptyDir(dir: string): Promise<boolean> {
  const entries = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
  if (entries && entries.length > 0) {
    throw new BackupError(`${dir} exists and is not empty: give a new or empty directory.`);
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return entries === null;
}

/**
 * Writes a snapshot of the database at `databaseUrl` (and of the file store this process uses) into
 * `dir`, which must be new or empty. On failure what was written into `dir` is removed.
 */
export async function writeSnapshot(options: {
  databaseUrl: string;
  /** the process's database: the store of uploads on SQLite is found through it */
  db: Db;
  dir: string;
  signal?: AbortSignal;
}): Promise<Snapshot> {
  const dir = resolve(options.dir);
  const made = await prepareEmptyDir(dir);
  try {
    const dialect = dialectOf(options.databaseUrl);
    const taken =
      dialect === "sqlite"
        ? await sqliteSnapshot(options.databaseUrl, dir, options.db, options.signal)
        : await postgresSnapshot(options.databaseUrl, dir, options.signal);
    // Signed: restore refuses a snapshot changed afterwards (issue 44, finding 7).
    const manifest = signManifest(
      getSecretBox(),
      "backup",
      newManifest({
        heraldVersion: HERALD_VERSION,
        dialect,
        createdAt: taken.createdAt,
        fileStore: taken.fileStore,
        secretKeyIds: taken.secretKeyIds,
        files: await describeFiles(dir),
      }),
    );
    // Last: a directory with a manifest is a finished snapshot.
    await writeFile(join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, {
      mode: 0o600,
    });
    const bytes =
      manifest.files.reduce((sum, file) => sum + file.size, 0) +
      (await stat(join(dir, MANIFEST_FILE))).size;
    return { dir, manifest, bytes };
  } catch (error) {
    if (made) await rm(dir, { recursive: true, force: true });
    else await emptyDir(dir);
    throw error;
  }
}

async function emptyDir(dir: string): Promise<void> {
  for (const entry of await readdir(dir).catch(() => [] as string[])) {
    await rm(join(dir, entry), { recursive: true, force: true });
  }
}

interface Taken {
  createdAt: string;
  fileStore: FileBackend["kind"];
  secretKeyIds: string[];
}

/**
 * SQLite's online backup API from a connection of its own, inside a read transaction it holds from
 * the first page to the last: every step copies from that one moment (WAL: the site and the sender
 * keep writing meanwhile), so the copy is consistent and never restarted by their writes — without
 * the transaction, a backup restarts after every write by another connection, which during a
 * campaign is for ever. Small steps keep the process's event loop answering. The copy is then
 * turned to a rollback journal: one self-contained file.
 */
async function sqliteSnapshot(
  url: string,
  dir: string,
  db: Db,
  signal?: AbortSignal,
): Promise<Taken> {
  const target = join(dir, SQLITE_FILE);
  const source = new SQLite(resolve(url.replace(/^file:/, "")), { fileMustExist: true });
  let createdAt: string;
  try {
    source.pragma("busy_timeout = 5000");
    source.prepare("BEGIN").run();
    // A deferred transaction takes its snapshot at the first read: now.
    source.prepare("SELECT count(*) FROM sqlite_master").get();
    createdAt = new Date().toISOString();
    await source.backup(target, {
      progress: () => {
        signal?.throwIfAborted();
        return BACKUP_STEP_PAGES;
      },
    });
    source.prepare("COMMIT").run();
  } finally {
    source.close();
  }
  await chmod(target, 0o600); // subscribers' addresses, staff's password hashes
  const copy = new SQLite(target);
  copy.pragma("journal_mode = DELETE");
  const copyDb = new Kysely<Database>({ dialect: new SqliteDialect({ database: copy }) });
  let secretKeyIds: string[];
  try {
    secretKeyIds = await keyIdsInUse(copyDb);
  } finally {
    await copyDb.destroy();
  }
  const store = fileStoreFor(db);
  await copyFiles(store, dir, signal);
  return { createdAt, fileStore: store.kind, secretKeyIds };
}

/**
 * pg_dump of an exported snapshot; the key ids and (on the database store) the files are read in
 * the same snapshot, so they are exactly the dump's.
 */
async function postgresSnapshot(url: string, dir: string, signal?: AbortSignal): Promise<Taken> {
  return inExportedSnapshot(url, async (snapshot) => {
    await checkPgTool("pg_dump", snapshot.serverMajor);
    const createdAt = new Date().toISOString();
    await dumpDatabase(url, snapshot.id, join(dir, PGDUMP_FILE), signal);
    await chmod(join(dir, PGDUMP_FILE), 0o600);
    const secretKeyIds = await keyIdsInUse(snapshot.db);
    const store = fileStoreFor(snapshot.db);
    await copyFiles(store, dir, signal);
    return { createdAt, fileStore: store.kind, secretKeyIds };
  });
}

/** Every file in `store` into `dir`/files/, under its key. */
async function copyFiles(store: FileBackend, dir: string, signal?: AbortSignal): Promise<void> {
  for await (const key of store.keys()) {
    signal?.throwIfAborted();
    const bytes = await store.read(key);
    if (!bytes) continue; // gone since it was listed: a deleted tenant's file, named by no row
    const path = join(dir, FILES_DIR, key);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeFile(path, bytes, { flag: "wx", mode: 0o600 });
  }
}
