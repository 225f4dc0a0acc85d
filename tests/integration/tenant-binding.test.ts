import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getCampaignRow } from "../../server/campaigns/campaign-row";
import { listCampaigns } from "../../server/campaigns/overview";
import { migrateToLatest } from "../../server/db/migrate";
import { TenantGuardError, tenantDb } from "../../server/db/tenant-guard";
import { getNewsletter, listNewsletters } from "../../server/newsletters/listing";
import {
  countNewsletterView,
  insertNewsletter,
  viewPublishedNewsletter,
} from "../../server/newsletters/newsletters";
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
    // A query written with another tenant's id is refused by the bound guard.
    const wrong = main.db
      .selectFrom("campaigns")
      .select("id")
      .where("tenant_id", "=", "keydiscovery")
      .where("id", "=", "c1");
    await expect(wrong.execute()).rejects.toThrow(
      "a tenant_id condition naming keydiscovery on a database bound to tenant main",
    );
    // A function that binds what it is given refuses to rebind the request's database to another
    // tenant (campaigns and the audience alike).
    await expect(getCampaignRow(main.db, "keydiscovery", "c1")).rejects.toThrow(
      "a database bound to tenant main rebound to keydiscovery",
    );
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

  it("gives each tenant only its own rows through functions that name no tenant themselves", async () => {
    const at = new Date().toISOString();
    for (const tenant of ["main", "keydiscovery"]) {
      const db = tenantDb(database.db, tenant);
      // The same slug in both tenants: only the binding tells them apart.
      await insertNewsletter(db, {
        id: `bound-${tenant}`,
        tenant_id: tenant,
        title: `Bound ${tenant}`,
        excerpt: "",
        content: "<p>x</p>",
        read_time: 1,
        status: "published",
        author_id: null,
        author_name: null,
        created_at: at,
        updated_at: at,
        published_at: at,
        slug: "bound-same-slug",
        cover_image: null,
        cover_alt: null,
      });
      await db
        .insertInto("campaigns")
        .values({
          id: `bound-campaign-${tenant}`,
          tenant_id: tenant,
          newsletter_id: null,
          name: `Campaign of ${tenant}`,
          subject: "s",
          from_name: "f",
          from_email: "f@example.com",
          content: "<p>x</p>",
          list_ids: "[]",
          track_opens: 0,
          track_clicks: 0,
          status: "draft",
          scheduled_at: null,
          started_at: null,
          finished_at: null,
          created_by: null,
          created_at: at,
          updated_at: at,
        })
        .execute();
    }
    const main = tenantScope({ db: database.db, tenantId: "main" });
    const kd = tenantScope({ db: database.db, tenantId: "keydiscovery" });
    // Prepared queries are compiled per tenant's database: each answers its own tenant's row.
    expect((await viewPublishedNewsletter(main, "bound-same-slug"))?.newsletter.id).toBe(
      "bound-main",
    );
    expect((await viewPublishedNewsletter(kd, "bound-same-slug"))?.newsletter.id).toBe(
      "bound-keydiscovery",
    );
    expect(await countNewsletterView(database.db, "main", "bound-same-slug")).toMatchObject({
      views: 2,
    });
    expect(await countNewsletterView(database.db, "keydiscovery", "bound-same-slug")).toMatchObject(
      { views: 2 },
    );
    expect(await getNewsletter(main, "bound-keydiscovery")).toBeNull();
    const mainIds = (await listNewsletters(main)).items.map((item) => item.id);
    expect(mainIds).toContain("bound-main");
    expect(mainIds).not.toContain("bound-keydiscovery");
    // Campaigns: another tenant's is not found, and not listed.
    await expect(getCampaignRow(main.db, "main", "bound-campaign-keydiscovery")).rejects.toThrow(
      "Campaign not found",
    );
    expect(
      (await getCampaignRow(database.db, "keydiscovery", "bound-campaign-keydiscovery")).name,
    ).toBe("Campaign of keydiscovery");
    const mainConfig = (await getTenant(database.db, "main")).config;
    const listed = await listCampaigns({ db: database.db, tenant: mainConfig });
    expect(listed.items.map((item) => item.campaign.id)).toEqual(["bound-campaign-main"]);
  });
});
