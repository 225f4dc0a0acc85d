import { spawn } from "node:child_process";
import { Kysely, PostgresDialect } from "kysely";
import type pg from "pg";
import { type Db, loadPg } from "../db";
import type { Database } from "../db/schema";
import { TenantGuardPlugin } from "../db/tenant-guard";
import { BackupError } from "./manifest";

/*
 * PostgreSQL's own tools (docs/decisions/029-backups.md): pg_dump in its custom format, read back
 * by pg_restore. Both must be the server's major version: an older pg_dump refuses a newer
 * server, and a newer pg_dump writes archives an older pg_restore cannot read.
 */

export type PgTool = "pg_dump" | "pg_restore";

/** The major version in `pg_dump --version`'s answer ("pg_dump (PostgreSQL) 15.20 (Debian …)"). */
export function toolMajorVersion(output: string): number | null {
  const match = /\(PostgreSQL\)\s+(\d+)/.exec(output);
  return match ? Number(match[1]) : null;
}

/** Refuses a missing tool or one of another major version than the server's. */
export async function checkPgTool(tool: PgTool, serverMajor: number): Promise<void> {
  let output: string;
  try {
    output = (await run(tool, ["--version"], process.env)).stdout;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new BackupError(
        `${tool} was not found on PATH. Install PostgreSQL ${serverMajor}'s client tools (the server's major version), e.g. the postgresql-client-${serverMajor} package.`,
      );
    }
    throw error;
  }
  const major = toolMajorVersion(output);
  if (major !== serverMajor) {
    throw new BackupError(
      `${tool} is version ${major ?? `unknown ("${output.trim()}")`} but the server is PostgreSQL ${serverMajor}: use ${tool} ${serverMajor} (an older one refuses a newer server; a newer one writes archives an older pg_restore cannot read).`,
    );
  }
}

/** The server's major version (15 for 15.20). */
export async function serverMajorVersion(client: pg.ClientBase): Promise<number> {
  const { rows } = await client.query<{ server_version_num: string }>("SHOW server_version_num");
  return Math.floor(Number(rows[0]?.server_version_num) / 10_000);
}

/**
 * The URL and environment for a tool: the password goes in PGPASSWORD, not the command line,
 * where every user of the machine could read it in the process list.
 */
function connectionFor(url: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = "";
  return {
    dbname: parsed.toString(),
    env: password ? { ...process.env, PGPASSWORD: password } : { ...process.env },
  };
}

function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  signal?: AbortSignal,
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"], signal });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("close", (code) => {
      if (code === 0) resolve({ stdout, stderr });
      else reject(new BackupError(`${command} failed (exit ${code}): ${stderr.trim()}`));
    });
  });
}

/**
 * One REPEATABLE READ transaction whose snapshot is exported: pg_dump (--snapshot) and `work`'s
 * queries see the very same state of the database, the files in `stored_files` included.
 */
export async function inExportedSnapshot<T>(
  url: string,
  work: (snapshot: { id: string; db: Db; serverMajor: number }) => Promise<T>,
): Promise<T> {
  const client = new (await loadPg()).Client({ connectionString: url });
  await client.connect();
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({
      // Every query on this one connection, inside the transaction: never released to a pool.
      pool: { connect: async () => Object.assign(client, { release() {} }), end: async () => {} },
    }),
    plugins: [new TenantGuardPlugin()],
  });
  try {
    const serverMajor = await serverMajorVersion(client);
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY");
    const { rows } = await client.query<{ id: string }>("SELECT pg_export_snapshot() AS id");
    const result = await work({ id: rows[0]?.id ?? "", db, serverMajor });
    await client.query("COMMIT");
    return result;
  } finally {
    await client.end();
  }
}

/**
 * pg_dump of the exported snapshot into `file`, custom format. `stored_files`' rows are left out:
 * the files are copied into the snapshot's files/ like every other store's.
 */
export async function dumpDatabase(
  url: string,
  snapshotId: string,
  file: string,
  signal?: AbortSignal,
): Promise<void> {
  const { dbname, env } = connectionFor(url);
  await run(
    "pg_dump",
    [
      "--format=custom",
      `--snapshot=${snapshotId}`,
      "--exclude-table-data=stored_files",
      "--no-owner",
      "--no-privileges",
      `--file=${file}`,
      `--dbname=${dbname}`,
    ],
    env,
    signal,
  );
}

/** pg_restore of a dump into an empty database, in one transaction: all of it or nothing. */
export async function restoreDatabase(url: string, file: string): Promise<void> {
  const { dbname, env } = connectionFor(url);
  await run(
    "pg_restore",
    [
      "--exit-on-error",
      "--single-transaction",
      "--no-owner",
      "--no-privileges",
      `--dbname=${dbname}`,
      file,
    ],
    env,
  );
}

/** The tables in the database's public schema (an empty database has none). */
export async function publicTables(
  url: string,
): Promise<{ tables: string[]; serverMajor: number }> {
  const client = new (await loadPg()).Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
    );
    return {
      tables: rows.map((row) => row.table_name),
      serverMajor: await serverMajorVersion(client),
    };
  } finally {
    await client.end();
  }
}

/**
 * Undoes a restore that failed after pg_restore (the database was empty before it): the public
 * schema made anew as PostgreSQL 15 makes it, owned by the database's owner, usable by all.
 */
export async function emptyPublicSchema(url: string): Promise<void> {
  const client = new (await loadPg()).Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("BEGIN");
    await client.query("DROP SCHEMA public CASCADE");
    await client.query("CREATE SCHEMA public");
    await client.query("ALTER SCHEMA public OWNER TO pg_database_owner");
    await client.query("GRANT USAGE ON SCHEMA public TO PUBLIC");
    await client.query("COMMIT");
  } finally {
    await client.end();
  }
}
