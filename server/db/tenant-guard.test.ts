import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { createDb } from "./index";
import { crossTenant, TENANT_TABLES } from "./tenant-guard";

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
