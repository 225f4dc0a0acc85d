import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { createDb, type Db, type DialectName } from "../../server/db";
import type { Database } from "../../server/db/schema";
import { crossTenant } from "../../server/db/tenant-guard";

export interface TestDatabase {
  dialect: DialectName;
  url: string;
  /** A Kysely handle for assertions; close it with drop(). */
  db: Db;
  drop(): Promise<void>;
}

/** The dialects to run against: SQLite always, PostgreSQL when TEST_DATABASE_URL is set. */
export function testDialects(): DialectName[] {
  return process.env.TEST_DATABASE_URL ? ["sqlite", "postgres"] : ["sqlite"];
}

/** A fresh, empty database: a new SQLite file, or a new PostgreSQL database. */
export async function createTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  if (dialect === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "herald-test-"));
    const url = `file:${join(dir, "herald.db")}`;
    let db: Db | undefined;
    return {
      dialect,
      url,
      get db() {
        db ??= createDb(url);
        return db;
      },
      async drop() {
        await db?.destroy();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error("TEST_DATABASE_URL is not set");
  const name = `herald_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  let db: Db | undefined;
  return {
    dialect,
    url: url.toString(),
    get db() {
      db ??= createDb(url.toString());
      return db;
    },
    async drop() {
      await db?.destroy();
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/** How many rows `table` has: a test's "nothing was written" check. */
export async function countRows(db: Db, table: keyof Database): Promise<number> {
  const { n } = await crossTenant(db)
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(n);
}
