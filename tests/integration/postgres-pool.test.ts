import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/database";

/**
 * PostgreSQL may close a pooled connection while it sits idle (a restart, a failover, an
 * administrator). The process must carry on: the next query gets a fresh connection.
 */
describe.runIf(process.env.TEST_DATABASE_URL)("the PostgreSQL pool", () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase("postgres");
  });

  afterAll(async () => {
    await database?.drop();
  });

  it("survives the server terminating its idle connections", async () => {
    const one = await sql<{ one: number }>`select 1 as one`.execute(database.db);
    expect(one.rows[0]?.one).toBe(1);
    const name = new URL(database.url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    const killed = await admin.query(
      "select pg_terminate_backend(pid) from pg_stat_activity where datname = $1",
      [name],
    );
    await admin.end();
    expect(killed.rowCount).toBeGreaterThan(0);
    // Give the pool time to hear of it: without an error listener this is where the process dies.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const again = await sql<{ two: number }>`select 2 as two`.execute(database.db);
    expect(again.rows[0]?.two).toBe(2);
  });
});
