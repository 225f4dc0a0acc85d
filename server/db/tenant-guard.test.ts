import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "./index";
import { migrateToLatest } from "./migrate";
import { preparedQuery } from "./prepared";
import {
  boundTenantOf,
  crossTenant,
  TENANT_TABLES,
  TenantGuardError,
  tenantDb,
} from "./tenant-guard";

// Queries are only compiled here: the guard runs when a query is built, before any database.
const dir = mkdtempSync(path.join(tmpdir(), "herald-guard-"));
const databases = {
  sqlite: createDb(`file:${path.join(dir, "guard.db")}`),
  postgres: createDb("postgres://nobody@127.0.0.1:1/never"),
};

const refused = /without (a )?tenant_id/;

describe.each(Object.entries(databases))("the tenant guard on %s", (_, db) => {
  it("refuses select, update and delete on a tenant table without the tenant", () => {
    expect(() => db.selectFrom("campaigns").selectAll().where("id", "=", "c1").compile()).toThrow(
      "select on campaigns without a tenant_id condition",
    );
    expect(() =>
      db.updateTable("subscribers").set({ name: "x" }).where("id", "=", 1).compile(),
    ).toThrow("update on subscribers without a tenant_id condition");
    expect(() => db.deleteFrom("newsletters").where("id", "=", "n1").compile()).toThrow(
      "delete on newsletters without a tenant_id condition",
    );
  });

  it("accepts them with the tenant", () => {
    db.selectFrom("campaigns")
      .selectAll()
      .where("tenant_id", "=", "main")
      .where("id", "=", "c1")
      .compile();
    db.updateTable("subscribers")
      .set({ name: "x" })
      .where("id", "=", 1)
      .where("tenant_id", "=", "main")
      .compile();
    db.deleteFrom("newsletters").where("tenant_id", "in", ["main", "kd"]).compile();
    db.selectFrom("mail_log").select("id").where("tenant_id", "is", null).compile();
  });

  it("refuses an insert without tenant_id, and accepts one with it", () => {
    const row = { key: "a.png", width: 1, height: 1, variants: "[]", created_at: "now" };
    expect(() =>
      db
        .insertInto("images")
        .values(row as never)
        .compile(),
    ).toThrow("insert into images without tenant_id");
    db.insertInto("images")
      .values({ ...row, tenant_id: "main" } as never)
      .compile();
  });

  it("does not count a tenant condition inside an OR", () => {
    expect(() =>
      db
        .selectFrom("lists")
        .selectAll()
        .where((eb) => eb.or([eb("tenant_id", "=", "main"), eb("id", "=", 1)]))
        .compile(),
    ).toThrow(refused);
  });

  it("checks subqueries and joins on their own", () => {
    expect(() =>
      db
        .selectFrom("subscribers")
        .select("id")
        .where("tenant_id", "=", "main")
        .where((eb) =>
          eb.exists(
            eb.selectFrom("campaigns").select(sql`1`.as("one")).where("status", "=", "sent"),
          ),
        )
        .compile(),
    ).toThrow("select on campaigns");
    const deliveriesOfCampaigns = (...tables: ("deliveries" | "campaigns")[]) => {
      let query = db
        .selectFrom("deliveries")
        .innerJoin("campaigns", "campaigns.id", "deliveries.campaign_id")
        .select("deliveries.id");
      for (const table of tables) query = query.where(`${table}.tenant_id`, "=", "main");
      return () => query.compile();
    };
    expect(deliveriesOfCampaigns("deliveries")).toThrow("select on campaigns");
    // A child table carries its parent's tenant (0011): the parent's condition does not cover it.
    expect(deliveriesOfCampaigns("campaigns")).toThrow("select on deliveries");
    deliveriesOfCampaigns("deliveries", "campaigns")();
    db.selectFrom("deliveries")
      .where("deliveries.tenant_id", "=", "main")
      .innerJoin("campaigns", (join) =>
        join
          .onRef("campaigns.id", "=", "deliveries.campaign_id")
          .on("campaigns.tenant_id", "=", "main"),
      )
      .select("deliveries.id")
      .compile();
  });

  it("matches the condition to the table it names, aliases included", () => {
    db.selectFrom("campaigns as c").select("c.id").where("c.tenant_id", "=", "main").compile();
    expect(() =>
      db
        .selectFrom("campaigns as c")
        .innerJoin("newsletters as n", "n.id", "c.newsletter_id")
        .select("c.id")
        .where("c.tenant_id", "=", "main")
        .compile(),
    ).toThrow("select on newsletters");
  });

  it("refuses raw SQL that reads or writes a tenant table", () => {
    expect(() => sql`select * from campaigns where id = ${"c1"}`.compile(db)).toThrow(
      "raw SQL on campaigns",
    );
    expect(() => sql`INSERT INTO "subscriptions" (list_id) VALUES (${1})`.compile(db)).toThrow(
      "raw SQL on subscriptions",
    );
    expect(() => sql`update ${sql.table("deliveries")} set status = 'x'`.compile(db)).toThrow(
      "raw SQL on deliveries",
    );
    // A fragment inside a built query is checked too.
    expect(() =>
      db.selectFrom("users").select(sql`(select count(*) from lists)`.as("n")).compile(),
    ).toThrow("raw SQL on lists");
    // Raw SQL on other tables, and crossTenant, pass.
    sql`select 1 from users`.compile(db);
    sql`INSERT INTO newsletter_search_fts (rowid) VALUES (1)`.compile(db);
    sql`select * from campaigns`.compile(crossTenant(db));
  });

  it("lets code that is cross-tenant on purpose say so", () => {
    crossTenant(db)
      .selectFrom("campaigns")
      .select("id")
      .where("status", "=", "scheduled")
      .compile();
    // Tables without a tenant column are not guarded.
    db.selectFrom("users").selectAll().compile();
  });
});

describe("the list of tenant tables", () => {
  it("is every table of server/db/schema.ts with a tenant_id column", () => {
    const schema = readFileSync(path.join(import.meta.dirname, "schema.ts"), "utf8");
    const withTenant = new Set(
      [...schema.matchAll(/export interface (\w+) \{([\s\S]*?)\n\}/g)]
        .filter(([, , body]) => /\btenant_id\b/.test(body ?? ""))
        .map(([, name]) => name),
    );
    const database = /export interface Database \{([\s\S]*?)\n\}/.exec(schema)?.[1] ?? "";
    const tables = [...database.matchAll(/(\w+): (\w+);/g)]
      .filter(([, , type]) => withTenant.has(type ?? ""))
      .map(([, table]) => table);
    expect(tables.length).toBeGreaterThan(5);
    expect([...TENANT_TABLES].sort()).toEqual(tables.sort());
  });
});

// The bound guard (issue 34): a real SQLite file with two tenants' rows.
describe("a database bound to one tenant", () => {
  const TENANT = {
    domain: null,
    description: "",
    mail_list_group_id: null,
    config: "{}",
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: "2026-01-01T00:00:00.000Z",
  };
  const at = "2026-01-01T00:00:00.000Z";
  let root: Db;
  let a: Db;

  beforeAll(async () => {
    root = createDb(`file:${path.join(dir, "bound.db")}`);
    await migrateToLatest(root);
    await root
      .insertInto("tenants")
      .values([
        { ...TENANT, id: "a", name: "A" },
        { ...TENANT, id: "b", name: "B" },
      ])
      .execute();
    await root
      .insertInto("tags")
      .values([
        { tenant_id: "a", slug: "one", name: "A one", created_at: at },
        { tenant_id: "b", slug: "one", name: "B one", created_at: at },
        { tenant_id: "b", slug: "two", name: "B two", created_at: at },
      ])
      .execute();
    a = tenantDb(root, "a");
  });

  afterAll(() => root?.destroy());

  it("is memoised per database and tenant, and knows its tenant", () => {
    expect(tenantDb(root, "a")).toBe(a);
    expect(tenantDb(a, "a")).toBe(a);
    expect(tenantDb(root, "b")).not.toBe(a);
    expect(boundTenantOf(a)).toBe("a");
    expect(boundTenantOf(root)).toBeUndefined();
    // Rebinding to another tenant is refused; crossTenant first says it is on purpose.
    expect(() => tenantDb(a, "b")).toThrow(TenantGuardError);
    expect(boundTenantOf(tenantDb(crossTenant(a), "b"))).toBe("b");
  });

  it("adds the tenant condition itself: the SQL shows it, another tenant's rows are not returned", async () => {
    const query = a.selectFrom("tags").select("name").where("slug", "=", "one");
    const compiled = query.compile();
    expect(compiled.sql).toBe(
      'select "name" from "tags" where "slug" = ? and "tags"."tenant_id" = ?',
    );
    expect(compiled.parameters).toEqual(["one", "a"]);
    expect(await query.execute()).toEqual([{ name: "A one" }]);
    expect(await a.selectFrom("tags").select("name").execute()).toEqual([{ name: "A one" }]);
    // Updates and deletes are bound too: B's rows are untouched.
    await a.updateTable("tags").set({ name: "renamed" }).execute();
    await a.deleteFrom("tags").where("slug", "=", "two").execute();
    const all = await crossTenant(root)
      .selectFrom("tags")
      .select(["tenant_id", "slug", "name"])
      .orderBy("tenant_id")
      .orderBy("slug")
      .execute();
    expect(all).toEqual([
      { tenant_id: "a", slug: "one", name: "renamed" },
      { tenant_id: "b", slug: "one", name: "B one" },
      { tenant_id: "b", slug: "two", name: "B two" },
    ]);
  });

  it("binds subqueries, and joined tables in their ON (a left join keeps its rows)", async () => {
    const exists = a
      .selectFrom("tags")
      .select("slug")
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom("newsletter_tags")
            .select(sql`1`.as("one"))
            .whereRef("newsletter_tags.tag_slug", "=", "tags.slug"),
        ),
      )
      .compile();
    expect(exists.sql).toContain('"newsletter_tags"."tenant_id" = ?');
    expect(exists.sql).toContain('"tags"."tenant_id" = ?');
    expect(exists.parameters).toEqual(["a", "a"]);
    const joined = a
      .selectFrom("tags as t")
      .leftJoin("newsletter_tags as nt", "nt.tag_slug", "t.slug")
      .select(["t.slug", "nt.newsletter_id"])
      .compile();
    expect(joined.sql).toBe(
      'select "t"."slug", "nt"."newsletter_id" from "tags" as "t" left join "newsletter_tags" as "nt" on "nt"."tag_slug" = "t"."slug" and "nt"."tenant_id" = ? where "t"."tenant_id" = ?',
    );
    expect(
      await a
        .selectFrom("tags as t")
        .leftJoin("newsletter_tags as nt", "nt.tag_slug", "t.slug")
        .select(["t.slug", "nt.newsletter_id"])
        .execute(),
    ).toEqual([{ slug: "one", newsletter_id: null }]);
  });

  it("refuses a condition naming another tenant, in a subquery too", () => {
    const naming = /tenant_id condition naming b .*bound to tenant a/;
    expect(() => a.selectFrom("tags").selectAll().where("tenant_id", "=", "b").compile()).toThrow(
      naming,
    );
    expect(() =>
      a.selectFrom("tags").selectAll().where("tags.tenant_id", "in", ["a", "b"]).compile(),
    ).toThrow(/naming a, b/);
    expect(() =>
      a.selectFrom("mail_log").select("id").where("tenant_id", "is", null).compile(),
    ).toThrow(/naming null/);
    expect(() =>
      a
        .selectFrom("tags")
        .select("slug")
        .where("slug", "in", (eb) =>
          eb.selectFrom("newsletter_tags").select("tag_slug").where("tenant_id", "=", "b"),
        )
        .compile(),
    ).toThrow(naming);
    // Its own tenant is accepted (the code of other helpers still names it).
    a.selectFrom("tags").selectAll().where("tenant_id", "=", "a").compile();
    a.selectFrom("tags").selectAll().where("tenant_id", "in", ["a"]).compile();
  });

  it("refuses an insert for another tenant or without tenant_id, and a row moved away", () => {
    const tag = { slug: "x", name: "X", created_at: at };
    expect(() =>
      a
        .insertInto("tags")
        .values({ ...tag, tenant_id: "b" })
        .compile(),
    ).toThrow("insert into tags for another tenant");
    expect(() =>
      a
        .insertInto("tags")
        .values([
          { ...tag, tenant_id: "a" },
          { ...tag, slug: "y", tenant_id: "b" },
        ])
        .compile(),
    ).toThrow("insert into tags for another tenant");
    expect(() =>
      a
        .insertInto("tags")
        .values(tag as never)
        .compile(),
    ).toThrow("insert into tags without tenant_id");
    expect(() => a.updateTable("tags").set({ tenant_id: "b" }).compile()).toThrow(
      "moving tags rows to another tenant",
    );
    a.insertInto("tags")
      .values({ ...tag, tenant_id: "a" })
      .compile();
  });

  it("refuses raw SQL on a tenant table", async () => {
    await expect(sql`select * from tags`.execute(a)).rejects.toThrow("raw SQL on tags");
    expect(() =>
      a.selectFrom("tags").select(sql`(select count(*) from newsletter_tags)`.as("n")).compile(),
    ).toThrow("raw SQL on newsletter_tags");
  });

  it("runs queries on other tables as they are", () => {
    const query = a.selectFrom("users").select("id").where("id", "=", "u1");
    expect(query.compile().sql).toBe('select "id" from "users" where "id" = ?');
  });

  it("keeps transactions bound, and prepared queries compiled once per tenant", async () => {
    const names = await a
      .transaction()
      .execute((trx) => trx.selectFrom("tags").select("name").execute());
    expect(names).toEqual([{ name: "renamed" }]);
    const tagNamed = preparedQuery<"slug", { name: string }>((db, value) =>
      db.selectFrom("tags").select("name").where("slug", "=", value("slug")),
    );
    expect(await tagNamed(a, { slug: "one" })).toEqual([{ name: "renamed" }]);
    expect(await tagNamed(tenantDb(root, "b"), { slug: "one" })).toEqual([{ name: "B one" }]);
    expect(await tagNamed(tenantDb(root, "a"), { slug: "one" })).toEqual([{ name: "renamed" }]);
  });
});
