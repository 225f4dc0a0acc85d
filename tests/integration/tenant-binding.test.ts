import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getCampaignRow } from "../../server/campaigns/campaign-row";
import { migrateToLatest } from "../../server/db/migrate";
import { TenantGuardError, tenantDb } from "../../server/db/tenant-guard";
import { tenantScope } from "../../server/scope";
import { listTenantLists } from "../../server/subscribers/lists";
import { seedTenants } from "../../server/tenants/seed";
import { getTenant } from "../../server/tenants/store";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";

// Issue 34, target 3: a query naming another tenant than its database's is refused, not answered.
describe.each(testDialects())("a database bound to the request's tenant on %s", (dialect) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
  });

  afterAll(() => database?.drop());

  it("refuses a domain function's query that names another tenant (a deliberately wrong id)", async () => {
    const main = tenantScope({ db: database.db, tenantId: "main" });
    // campaigns.ts still names the tenant by hand: the wrong one is refused by the bound guard.
    await expect(getCampaignRow(main.db, "keydiscovery", "c1")).rejects.toThrow(TenantGuardError);
    await expect(getCampaignRow(main.db, "keydiscovery", "c1")).rejects.toThrow(
      "a tenant_id condition naming keydiscovery on a database bound to tenant main",
    );
    // A function that binds itself refuses to rebind the request's database to another tenant.
    const kdConfig = (await getTenant(database.db, "keydiscovery")).config;
    await expect(listTenantLists(main.db, kdConfig)).rejects.toThrow(TenantGuardError);
  });

  it("answers the same calls for its own tenant, with its own rows only", async () => {
    const mainLists = await listTenantLists(
      tenantDb(database.db, "main"),
      (await getTenant(database.db, "main")).config,
    );
    const kdLists = await listTenantLists(
      tenantDb(database.db, "keydiscovery"),
      (await getTenant(database.db, "keydiscovery")).config,
    );
    expect(mainLists.length).toBeGreaterThan(0);
    expect(kdLists.length).toBeGreaterThan(0);
    const kdIds = new Set(kdLists.map((list) => list.id));
    expect(mainLists.some((list) => kdIds.has(list.id))).toBe(false);
  });
});
