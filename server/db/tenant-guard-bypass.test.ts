import { CompiledQuery, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase, testDialects } from "../../tests/support/database";
import type { Db } from "./index";
import { migrateToLatest } from "./migrate";
import { preparedQuery } from "./prepared";
import { crossTenant, TenantGuardError, tenantDb } from "./tenant-guard";

/*
 * Issue 44, target 5: the bypasses the review found on a database bound to one tenant, each run
 * against the real createDb on a scratch database (SQLite, and PostgreSQL when TEST_DATABASE_URL
 * is set). A bound database refuses what it cannot prove names only its tenant, at the executor
 * (server/db/guarded-dialect.ts), so no path around the plugin runs such a statement.
 */

const at = "2026-01-01T00:00:00.000Z";
const TENANT = {
  domain: null,
  description: "",
  mail_list_group_id: null,
  config: "{}",
  created_at: at,
  updated_at: at,
};

describe.each(testDialects())("a database bound to main, on %s", (dialect) => {
  let database: TestDatabase;
  let root: Db;
  let main: Db;
  let keyDiscoveryList = 0;

  const tagsOf = async (tenant: string) =>
    (
      await crossTenant(root)
        .selectFrom("tags")
        .select(["slug", "name"])
        .where("tenant_id", "=", tenant)
        .orderBy("slug")
        .execute()
    ).map((tag) => `${tag.slug}:${tag.name}`);

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    root = database.db;
    await migrateToLatest(root);
    await root
      .insertInto("tenants")
      .values([
        { ...TENANT, id: "main", name: "Main" },
        { ...TENANT, id: "keydiscovery", name: "Key Discovery" },
      ])
      .execute();
    await root
      .insertInto("tags")
      .values([
        { tenant_id: "main", slug: "own", name: "Main's", created_at: at },
        { tenant_id: "keydiscovery", slug: "theirs", name: "KD's", created_at: at },
      ])
      .execute();
    const list = await root
      .insertInto("lists")
      .values({
        tenant_id: "keydiscovery",
        key: "kd",
        name: "KD list",
        description: "",
        created_at: at,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    keyDiscoveryList = Number(list.id);
    main = tenantDb(root, "main");
  });

  afterAll(() => database?.drop());

  it("(a) binds every table of a comma join, and refuses a raw one", async () => {
    const rows = await main
      .selectFrom(["tags", "tenants"])
      .select(["tags.slug", "tenants.id"])
      .execute();
    expect([...new Set(rows.map((row) => row.slug))]).toEqual(["own"]);
    await expect(sql`select slug from tenants, tags`.execute(main)).rejects.toThrow(
      "raw SQL on tags",
    );
    await expect(sql`select slug from tenants t , "tags" x`.execute(main)).rejects.toThrow(
      TenantGuardError,
    );
  });

  it("(b) refuses sql.id, sql.table, sql.ref and sql.raw naming a tenant table", async () => {
    await expect(sql`select * from ${sql.id("tags")}`.execute(main)).rejects.toThrow(
      "raw SQL on tags",
    );
    await expect(sql`select * from ${sql.table("tags")}`.execute(main)).rejects.toThrow(
      "raw SQL on tags",
    );
    await expect(sql`select ${sql.ref("t.name")} from tags t`.execute(main)).rejects.toThrow(
      "raw SQL on tags",
    );
    await expect(sql.raw("select * from tags").execute(main)).rejects.toThrow("raw SQL on tags");
    await expect(
      main
        .selectFrom("tenants")
        .select(sql<number>`(select count(*) from ${sql.id("tags")})`.as("n"))
        .execute(),
    ).rejects.toThrow("raw SQL on tags");
    // A column named like a table, and a column of a bound table, are not a table read.
    await main
      .selectFrom("tags")
      .select(sql<string>`upper(${sql.ref("tags.name")})`.as("name"))
      .execute();
  });

  it("(c) refuses a CompiledQuery naming a tenant table, and one whose text is not its query", async () => {
    await expect(main.executeQuery(CompiledQuery.raw("select * from tags"))).rejects.toThrow(
      "raw SQL on tags",
    );
    await expect(
      main.executeQuery(CompiledQuery.raw('delete from "tags" where 1 = 1')),
    ).rejects.toThrow(TenantGuardError);
    const harmless = main.selectFrom("tenants").select("id").compile();
    await expect(
      main.executeQuery({ ...harmless, sql: "select name from tags" } as CompiledQuery),
    ).rejects.toThrow(TenantGuardError);
    // The statement that names no tenant table runs.
    expect((await main.executeQuery(CompiledQuery.raw("select 1 as one"))).rows).toEqual([
      { one: 1 },
    ]);
    expect(await tagsOf("keydiscovery")).toEqual(["theirs:KD's"]);
  });

  it("(d) refuses a prepared insert whose stand-in names another tenant", async () => {
    const insertTag = preparedQuery<"owner" | "slug", never>((db, value) =>
      db.insertInto("tags").values({
        tenant_id: value("owner"),
        slug: value("slug"),
        name: "prepared",
        created_at: at,
      }),
    );
    await expect(insertTag(main, { owner: "keydiscovery", slug: "planted" })).rejects.toThrow(
      /keydiscovery .*bound to tenant main/,
    );
    expect(await tagsOf("keydiscovery")).toEqual(["theirs:KD's"]);
    // A stand-in in a condition too: the bound tenant's own value runs.
    const namedTag = preparedQuery<"owner" | "slug", { name: string }>((db, value) =>
      db
        .selectFrom("tags")
        .select("name")
        .where("tenant_id", "=", value("owner"))
        .where("slug", "=", value("slug")),
    );
    await expect(namedTag(main, { owner: "keydiscovery", slug: "theirs" })).rejects.toThrow(
      TenantGuardError,
    );
    expect(await namedTag(main, { owner: "main", slug: "own" })).toEqual([{ name: "Main's" }]);
    await insertTag(main, { owner: "main", slug: "added" });
    expect(await tagsOf("main")).toEqual(["added:prepared", "own:Main's"]);
  });

  it("(e) keeps an upsert's update to the bound tenant's row", async () => {
    const row = { tenant_id: "main", key: "x", name: "main's", description: "", created_at: at };
    // The conflict is on another tenant's row: it is not updated.
    await main
      .insertInto("lists")
      .values({ ...row, id: keyDiscoveryList })
      .onConflict((oc) => oc.column("id").doUpdateSet({ name: "taken over" }))
      .execute();
    const list = await crossTenant(root)
      .selectFrom("lists")
      .select(["tenant_id", "name"])
      .where("id", "=", keyDiscoveryList)
      .executeTakeFirstOrThrow();
    expect(list).toEqual({ tenant_id: "keydiscovery", name: "KD list" });
    // Moving the conflicting row to another tenant is refused.
    expect(() =>
      main
        .insertInto("tags")
        .values({ tenant_id: "main", slug: "own", name: "x", created_at: at })
        .onConflict((oc) =>
          oc.columns(["tenant_id", "slug"]).doUpdateSet({ tenant_id: "keydiscovery" }),
        )
        .compile(),
    ).toThrow("moving tags rows to another tenant");
    // The bound tenant's own conflict is updated.
    await main
      .insertInto("tags")
      .values({ tenant_id: "main", slug: "own", name: "upserted", created_at: at })
      .onConflict((oc) => oc.columns(["tenant_id", "slug"]).doUpdateSet({ name: "upserted" }))
      .execute();
    expect(await tagsOf("main")).toContain("own:upserted");
  });

  it("refuses them on the root database too, and on a connection taken by hand", async () => {
    await expect(root.executeQuery(CompiledQuery.raw("select * from tags"))).rejects.toThrow(
      "raw SQL on tags",
    );
    await expect(sql`select * from tenants, ${sql.id("tags")}`.execute(root)).rejects.toThrow(
      "raw SQL on tags",
    );
    await expect(
      main
        .getExecutor()
        .provideConnection((connection) =>
          connection.executeQuery(CompiledQuery.raw("select * from tags")),
        ),
    ).rejects.toThrow(TenantGuardError);
    expect(await crossTenant(root).executeQuery(CompiledQuery.raw("select * from tags"))).toEqual(
      expect.objectContaining({ rows: expect.any(Array) }),
    );
  });

  it("keeps the guard when plugins are dropped; crossTenant alone lifts it", async () => {
    await expect(main.withoutPlugins().selectFrom("tags").selectAll().execute()).rejects.toThrow(
      TenantGuardError,
    );
    await expect(
      main
        .transaction()
        .execute((trx) => trx.withoutPlugins().selectFrom("tags").selectAll().execute()),
    ).rejects.toThrow(TenantGuardError);
    expect(await crossTenant(main).selectFrom("tags").select("slug").execute()).toHaveLength(3);
  });
});
