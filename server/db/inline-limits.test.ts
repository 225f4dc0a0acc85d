import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "./index";
import { preparedQuery } from "./prepared";
import { tenantDb } from "./tenant-guard";

// SQLite's kept statements: a bound LIMIT would be prepared again on every run (inline-limits.ts).
const dir = mkdtempSync(path.join(tmpdir(), "herald-inline-limits-"));
let db: Db;

/** A table outside the schema (and the tenant guard's list). */
const numbers = (database: Db) =>
  database.selectFrom("numbers" as never).select(sql<number>`n`.as("n"));

beforeAll(async () => {
  db = createDb(`file:${path.join(dir, "limits.db")}`);
  await sql`create table numbers (n integer not null)`.execute(db);
  await sql`insert into numbers (n) values (1), (2), (3), (4), (5)`.execute(db);
});

afterAll(async () => {
  await db.destroy();
});

describe("SQLite limits", () => {
  it("writes a whole-number limit into the statement, and keeps the offset bound", () => {
    const query = numbers(db).limit(1).offset(20).compile();
    expect(query.sql).toBe('select n as "n" from "numbers" limit 1 offset ?');
    expect(query.parameters).toEqual([20]);
  });

  it("does so on a tenant's database too (its plugins are swapped, not its dialect)", () => {
    const query = tenantDb(db, "a").selectFrom("newsletters").select("id").limit(24).compile();
    expect(query.sql).toBe(
      'select "id" from "newsletters" where "newsletters"."tenant_id" = ? limit 24',
    );
    expect(query.parameters).toEqual(["a"]);
  });

  it("leaves anything but a whole number bound: a prepared query's stand-in, an expression", async () => {
    const page = preparedQuery<"limit", { n: number }>((database, value) =>
      numbers(database).orderBy(sql`n`).limit(value("limit")),
    );
    expect(await page(db, { limit: 2 })).toEqual([{ n: 1 }, { n: 2 }]);
    expect(await page(db, { limit: 3 })).toHaveLength(3);
    const sum = numbers(db).limit(sql<number>`1 + 1`).compile();
    expect(sum.sql).toBe('select n as "n" from "numbers" limit 1 + 1');
    const fractional = numbers(db).limit(1.5).compile();
    expect(fractional.sql).toBe('select n as "n" from "numbers" limit ?');
  });

  it("answers as a bound limit would", async () => {
    const rows = await numbers(db).orderBy(sql`n`, "desc").limit(2).offset(1).execute();
    expect(rows).toEqual([{ n: 4 }, { n: 3 }]);
  });
});
