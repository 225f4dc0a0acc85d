import { RouterContextProvider } from "react-router";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../tests/support/database";
import { ApiError } from "../api/errors";
import { type StaffUser, SUPER_ADMIN_ROLE } from "../auth/permissions";
import type { Db } from "../db";
import { migrateToLatest } from "../db/migrate";
import { boundTenantOf, tenantDb } from "../db/tenant-guard";
import { type RequestScope, requestContext } from "../http/context";
import { bindNamedTenant, bindNewTenant } from "./named-tenant";

const at = "2026-01-01T00:00:00.000Z";
const TENANT = {
  domain: null,
  description: "",
  mail_list_group_id: null,
  config: "{}",
  created_at: at,
  updated_at: at,
};

function staff(id: string, products: Record<string, true>, superAdmin = false): StaffUser {
  return {
    id,
    email: `${id}@example.com`,
    role: superAdmin ? SUPER_ADMIN_ROLE : "editor",
    products,
    isSuperAdmin: superAdmin,
    twoFactor: false,
  };
}

describe("bindNamedTenant", () => {
  let database: TestDatabase;
  let root: Db;
  let context: RouterContextProvider;

  beforeAll(async () => {
    database = await createTestDatabase("sqlite");
    root = database.db;
    await migrateToLatest(root);
    await root
      .insertInto("tenants")
      .values([
        { ...TENANT, id: "main", name: "Main" },
        { ...TENANT, id: "keydiscovery", name: "Key Discovery" },
      ])
      .execute();
    const user = (id: string, role: string, products: string) => ({
      id,
      email: `${id}@example.com`,
      password_hash: "x",
      role,
      products,
      created_at: at,
      updated_at: at,
      totp_secret: null,
      totp_enabled_at: null,
      totp_last_step: null,
      recovery_codes: null,
      display_name: null,
    });
    await root
      .insertInto("users")
      .values([
        user("editor", "editor", JSON.stringify({ keydiscovery: true })),
        // Granted keydiscovery in a session that began before the grant was taken away.
        user("revoked", "editor", "{}"),
        user("admin", SUPER_ADMIN_ROLE, "{}"),
      ])
      .execute();
    context = new RouterContextProvider();
    // The request's database is bound to its host's tenant, main.
    context.set(requestContext, { db: tenantDb(root, "main") } as unknown as RequestScope);
  });

  afterAll(() => database?.drop());

  const status = (promise: Promise<unknown>) =>
    promise.then(
      () => "ok",
      (error: unknown) => (error instanceof ApiError ? error.status : String(error)),
    );

  it("binds a granted tenant, read with the user's grant as stored", async () => {
    const named = await bindNamedTenant(context, "keydiscovery", {
      staff: staff("editor", { keydiscovery: true }),
    });
    expect(named.tenant.id).toBe("keydiscovery");
    expect(named.tenant.name).toBe("Key Discovery");
    expect(boundTenantOf(named.db)).toBe("keydiscovery");
    // The session says granted; the stored user no longer is.
    expect(
      await status(
        bindNamedTenant(context, "keydiscovery", {
          staff: staff("revoked", { keydiscovery: true }),
        }),
      ),
    ).toBe("PERMISSION_DENIED");
    expect(
      await status(bindNamedTenant(context, "main", { staff: staff("editor", { main: true }) })),
    ).toBe("PERMISSION_DENIED");
  });

  it("lets super admins bind every tenant, and only them where it asks for one", async () => {
    const admin = staff("admin", {}, true);
    expect(boundTenantOf((await bindNamedTenant(context, "main", { superAdmin: admin })).db)).toBe(
      "main",
    );
    expect(
      boundTenantOf((await bindNamedTenant(context, "keydiscovery", { staff: admin })).db),
    ).toBe("keydiscovery");
    // A session claiming super admin is not enough: the stored role decides.
    expect(
      await status(
        bindNamedTenant(context, "keydiscovery", { superAdmin: staff("editor", {}, true) }),
      ),
    ).toBe("PERMISSION_DENIED");
    expect(boundTenantOf(bindNewTenant(context, " new-one ", admin))).toBe("new-one");
    expect(() => bindNewTenant(context, "new-one", staff("editor", {}))).toThrow(ApiError);
  });

  it("answers NOT_FOUND for an unknown tenant, and binds open routes without a user", async () => {
    expect(await status(bindNamedTenant(context, "nobody", { anyone: "public lists" }))).toBe(
      "NOT_FOUND",
    );
    const named = await bindNamedTenant(context, "keydiscovery", { anyone: "public lists" });
    expect(boundTenantOf(named.db)).toBe("keydiscovery");
  });
});
