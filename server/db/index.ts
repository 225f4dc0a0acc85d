import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname, resolve } from "node:path";
import SQLite from "better-sqlite3";
import { type Kysely, PostgresDialect, type SqliteDatabase } from "kysely";
import type pg from "pg";
import { lazy } from "../lazy";
import { getLogger } from "../logger";
import { MiB, memoryCache, stringBytes } from "../memory-cache";
import { guardedKysely } from "./guarded-dialect";
import { SqliteInlineLimitsDialect } from "./inline-limits";
import type { Database } from "./schema";
import { TenantGuardPlugin } from "./tenant-guard";

export type Db = Kysely<Database>;
export type DialectName = "sqlite" | "postgres";

export function dialectOf(url: string): DialectName {
  return /^postgres(ql)?:\/\//.test(url) ? "postgres" : "sqlite";
}

/**
 * Every query on a tenant's table names the tenant (server/db/tenant-guard.ts), and every
 * statement is proven to before it runs (server/db/guarded-dialect.ts).
 */
const GUARDED = [new TenantGuardPlugin()];

/** node-postgres, loaded by the first PostgreSQL database opened: a SQLite install never holds it. */
export const loadPg = lazy(() => import("pg").then((module) => module.default));

/** The one Kysely factory: SQLite (WAL, foreign keys on) for file: URLs, PostgreSQL otherwise. */
export function createDb(url: string): Db {
  if (dialectOf(url) === "postgres") {
    // Kysely opens the pool on the first query, so the driver is loaded then.
    return guardedKysely(new PostgresDialect({ pool: () => postgresPool(url) }), GUARDED);
  }
  const path = resolve(url.replace(/^file:/, ""));
  mkdirSync(dirname(path), { recursive: true });
  // Created owner-only (SQLite gives its -wal and -shm files the database file's mode): the file
  // holds subscribers' addresses and staff's password hashes. An existing file keeps its mode.
  closeSync(openSync(path, "a", 0o600));
  const database = new SQLite(path);
  // Deleted and overwritten content is zeroed, not left in free pages: an erased subscriber's
  // address is gone from the file, not only from the table.
  database.pragma("secure_delete = ON");
  database.pragma("journal_mode = WAL");
  database.pragma("synchronous = NORMAL");
  database.pragma("foreign_keys = ON");
  database.pragma("busy_timeout = 5000");
  // 64 MiB of pages (the default is 2 MiB): a large audience's indexes stay in memory.
  database.pragma("cache_size = -65536");
  return guardedKysely(
    new SqliteInlineLimitsDialect({ database: keptStatements(database) }),
    GUARDED,
  );
}

async function postgresPool(url: string): Promise<pg.Pool> {
  const { Pool } = await loadPg();
  const pool = new Pool({
    connectionString: url,
    max: 10,
    // A connection attempt that gets no answer (a server starting up, a dead route) fails after
    // 10 s instead of holding its caller (the sender) for ever; TCP keepalive finds dead peers.
    connectionTimeoutMillis: 10_000,
    keepAlive: true,
  });
  // The server may close an idle connection (restart, failover, an administrator): the pool
  // drops it and opens another on the next query. Unheard, the error would end the process.
  const logClosed = (error: Error, what: string) => {
    // Only the error itself: pg attaches its client, connection parameters (password) and all.
    const { message, code } = error as Error & { code?: string };
    getLogger().warn({ err: { message, code } }, what);
  };
  pool.on("error", (error) => logClosed(error, "PostgreSQL closed an idle connection"));
  // The pool listens to a connection only while it is idle. One checked out between two queries
  // (inside a transaction, while the sender works) emits its error to nobody, which ends the
  // process; heard here, the connection's next query fails instead, and its caller retries.
  pool.on("connect", (client) => {
    client.on("error", (error) => logClosed(error, "PostgreSQL closed a connection"));
  });
  return pool;
}

/**
 * better-sqlite3 with its prepared statements kept by SQL text: Kysely prepares every query anew,
 * and preparing costs about as much as running a simple query (a sixth of the sender's database
 * time). Statements are never iterated (Kysely's stream() is not used), so one may serve every
 * caller; SQLite re-prepares a kept statement itself after a schema change.
 *
 * Kysely's transactions begin DEFERRED. Here they begin IMMEDIATE: with another process on the
 * file (`herald worker` beside the site), a deferred transaction that reads, then writes after the
 * other process wrote, fails at once with SQLITE_BUSY (busy_timeout cannot wait for a snapshot to
 * become current); one that takes the write lock first waits its turn instead.
 */
function keptStatements(database: SQLite.Database): SqliteDatabase {
  // Queries are built from code, so their texts are few; the bound only guards a runaway. A
  // prepared statement is its text and a few KB of SQLite's (counted as 4 KB).
  const statements = memoryCache<string, SQLite.Statement>({
    maxBytes: 8 * MiB,
    bytesOf: (_, sql) => stringBytes(sql) + 4096,
  });
  return {
    close: () => database.close(),
    prepare(text: string) {
      const sql = text === "begin" ? "begin immediate" : text;
      let statement = statements.get(sql);
      if (!statement) {
        statement = database.prepare(sql);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}
