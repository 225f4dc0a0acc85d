import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "./index";
import { migrateToLatest } from "./migrate";
import { preparedQuery } from "./prepared";

// A real SQLite file, migrated: the prepared queries run against it.
const dir = mkdtempSync(path.join(tmpdir(), "herald-prepared-"));
const TENANT = {
  domain: null,
  description: "",
  mail_list_group_id: null,
  config: "{}",
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
};
let db: Db;
let other: Db;

beforeAll(async () => {
  db = createDb(`file:${path.join(dir, "prepared.db")}`);
  other = createDb(`file:${path.join(dir, "other.db")}`);
  for (const database of [db, other]) {
    await migrateToLatest(database);
    await database
      .insertInto("tenants")
      .values([
        { ...TENANT, id: "a", name: "A" },
        { ...TENANT, id: "b", name: "B" },
      ])
      .execute();
  }
  await db
    .insertInto("tags")
    .values([
      { tenant_id: "a", slug: "one", name: "One", created_at: "2026-01-01T00:00:00.000Z" },
      { tenant_id: "a", slug: "two", name: "Two", created_at: "2026-01-01T00:00:00.000Z" },
      { tenant_id: "b", slug: "one", name: "B's one", created_at: "2026-01-01T00:00:00.000Z" },
    ])
    .execute();
  await other
    .insertInto("tags")
    .values({ tenant_id: "a", slug: "one", name: "Other", created_at: "2026-01-01T00:00:00.000Z" })
    .execute();
});

afterAll(async () => {
  await db?.destroy();
  await other?.destroy();
});

const tagsNamed = preparedQuery<"tenant" | "slug" | "limit", { name: string }>((db, value) =>
  db
    .selectFrom("tags")
    .select("name")
    .where("tenant_id", "=", value("tenant"))
    .where("slug", "=", value("slug"))
    .orderBy("name")
    .limit(value("limit")),
);

describe("a prepared query", () => {
  it("runs with each call's values, constants kept", async () => {
    expect(await tagsNamed(db, { tenant: "a", slug: "one", limit: 5 })).toEqual([{ name: "One" }]);
    expect(await tagsNamed(db, { tenant: "a", slug: "two", limit: 5 })).toEqual([{ name: "Two" }]);
    expect(await tagsNamed(db, { tenant: "b", slug: "one", limit: 5 })).toEqual([
      { name: "B's one" },
    ]);
    expect(await tagsNamed(db, { tenant: "b", slug: "two", limit: 5 })).toEqual([]);
    expect(await tagsNamed(db, { tenant: "a", slug: "one", limit: 0 })).toEqual([]);
  });

  it("is prepared for each database on its own", async () => {
    expect(await tagsNamed(other, { tenant: "a", slug: "one", limit: 5 })).toEqual([
      { name: "Other" },
    ]);
    expect(await tagsNamed(db, { tenant: "a", slug: "one", limit: 5 })).toEqual([{ name: "One" }]);
  });

  it("is still checked by the tenant guard", async () => {
    const unguarded = preparedQuery<"slug", { name: string }>((db, value) =>
      db.selectFrom("tags").select("name").where("slug", "=", value("slug")),
    );
    await expect(unguarded(db, { slug: "one" })).rejects.toThrow(
      "select on tags without a tenant_id condition",
    );
  });

  it("refuses a value that would be written into the query's text", async () => {
    const inlined = preparedQuery<"slug", { name: string }>((db, value) =>
      db
        .selectFrom("tags")
        .select("name")
        .where("tenant_id", "=", "a")
        .where(sql<boolean>`slug = ${sql.lit(value("slug"))}`),
    );
    await expect(inlined(db, { slug: "one" })).rejects.toThrow("must be parameters");
  });
});
