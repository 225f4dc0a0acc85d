import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase, testDialects } from "../../tests/support/database";
import { migrateToLatest } from "../db/migrate";
import { boundTenantOf, TenantGuardError, tenantDb } from "../db/tenant-guard";
import { parseEnv } from "../env";
import { getLogger } from "../logger";
import { outboxTransport } from "../mail/transport";
import { insertSubscriber } from "../subscribers/store";
import { findSubscriberRow } from "../subscribers/subscribers";
import type { TenantConfig } from "../tenants/config";
import { seedTenants } from "../tenants/seed";
import { getTenant } from "../tenants/store";
import { functionTenantScope } from "./functions";

/*
 * The scope a SPEC §7 function acts in (issue 34, target 3): the request's database is bound to
 * the host's tenant, and staff may call a function on another tenant they manage. The function
 * must get that other tenant with a database bound to it — never the request's database beside
 * another tenant, which would read the host's rows (or, bound, refuse every query).
 */
describe.each(testDialects())("a function call's scope on %s", (dialect) => {
  let database: TestDatabase;
  const tenants: Record<string, TenantConfig> = {};
  const parsed = parseEnv({ APP_URL: "http://localhost:4102" });
  if (!parsed.ok) throw new Error(parsed.problems.join("\n"));
  const env = parsed.env;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    const now = new Date().toISOString();
    for (const id of ["main", "keydiscovery"]) {
      tenants[id] = (await getTenant(database.db, id)).config;
      await insertSubscriber(
        database.db,
        id,
        {
          email: "same@example.com",
          name: `${id} reader`,
          status: "active",
          subscribed_at: now,
          unsubscribed_at: null,
        },
        now,
      );
    }
  });

  afterAll(async () => {
    await database.drop();
  });

  /** A request on main's host: its database bound to main, as server/http/app.ts builds it. */
  const requestScope = () => ({
    db: tenantDb(database.db, "main"),
    logger: getLogger(),
    transport: outboxTransport(),
    env,
    sessionSecret: "a-test-secret-of-enough-length-000000",
  });

  it("is the request's own database when the call acts on the request's tenant", async () => {
    const request = requestScope();
    const scope = functionTenantScope(request, tenants.main as TenantConfig);
    expect(scope.db).toBe(request.db);
    expect(scope.tenant.id).toBe("main");
    const row = await findSubscriberRow(scope, { email: "same@example.com" });
    expect(row?.name).toBe("main reader");
  });

  it("is bound to the other tenant when staff act on another tenant they manage", async () => {
    const scope = functionTenantScope(requestScope(), tenants.keydiscovery as TenantConfig);
    expect(scope.tenant.id).toBe("keydiscovery");
    expect(boundTenantOf(scope.db)).toBe("keydiscovery");
    // The same address in both tenants: the call reads its own tenant's row, not the host's.
    const row = await findSubscriberRow(scope, { email: "same@example.com" });
    expect(row?.name).toBe("keydiscovery reader");
    expect(row?.tenant_id).toBe("keydiscovery");
    // And it cannot be turned back to the host's tenant.
    await expect(
      scope.db.selectFrom("subscribers").select("id").where("tenant_id", "=", "main").execute(),
    ).rejects.toThrow(TenantGuardError);
    expect(() => tenantDb(scope.db, "main")).toThrow(TenantGuardError);
  });
});
