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

  it("survives the server terminating a connection checked out between two queries", async () => {
    const name = new URL(database.url).pathname.slice(1);
    // A transaction holds its connection while the caller works between queries (the sender does).
    const outcome = await database.db
      .transaction()
      .execute(async (trx) => {
        await sql`select 1`.execute(trx);
        const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
        await admin.connect();
        await admin.query(
          "select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()",
          [name],
        );
        await admin.end();
        // The connection hears it while no query is running: unheard, the process would end here.
        await new Promise((resolve) => setTimeout(resolve, 300));
        await sql`select 2`.execute(trx);
        return "committed";
      })
      .catch(() => "failed");
    expect(outcome).toBe("failed");
    const after = await sql<{ three: number }>`select 3 as three`.execute(database.db);
    expect(after.rows[0]?.three).toBe(3);
  });
});
