import type { RouterContextProvider } from "react-router";
import { TENANT_MESSAGES, tenantIdField } from "../../shared/schemas/tenant";
import { API_MESSAGES, ApiError } from "../api/errors";
import { isSuperAdmin, parseProducts, type StaffUser } from "../auth/permissions";
import type { Db } from "../db";
import { crossTenant, tenantDb } from "../db/tenant-guard";
import { scopeOf } from "../http/context";
import { type TenantView, viewOf } from "./views";

/**
 * Who may act on a tenant a route's URL names (not the request's host):
 * - `staff`: a staff member the tenant is granted to (super admins: every tenant);
 * - `superAdmin`: super admins only (the tenant manager and its API);
 * - `anyone`: an open route, with the reason it may (the public lists, a signed webhook).
 */
export type NamedTenantAccess =
  | { staff: StaffUser }
  | { superAdmin: StaffUser }
  | { anyone: "public lists" | "signed by the tenant's webhook secret" };

const NOT_GRANTED = "This tenant is not granted to your account";

export interface NamedTenant {
  tenant: TenantView;
  /** bound to the tenant (server/db/tenant-guard.ts): a route never holds an unbound database */
  db: Db;
}

/**
 * The one door of a route to a tenant its URL names (issue 44, target 5): reads the tenant and the
 * signed-in user's grant for it in one query — the user's role and products as stored now, not as
 * the session knew them — and returns the tenant with a database bound to it. An unknown tenant
 * is NOT_FOUND; a user without the grant, PERMISSION_DENIED.
 */
export async function bindNamedTenant(
  context: Readonly<RouterContextProvider>,
  tenantId: string,
  access: NamedTenantAccess,
): Promise<NamedTenant> {
  // The one crossTenant of the routes: the tenant named is not the request's.
  const root = crossTenant(scopeOf(context).db);
  const user = "staff" in access ? access.staff : "superAdmin" in access ? access.superAdmin : null;
  const row = await root
    .selectFrom("tenants")
    .leftJoin("users", (join) => join.on("users.id", "=", user?.id ?? ""))
    .selectAll("tenants")
    .select(["users.role as grant_role", "users.products as grant_products"])
    .where("tenants.id", "=", tenantId)
    .executeTakeFirst();
  if (!row) throw new ApiError("NOT_FOUND", TENANT_MESSAGES.notFound);
  const { grant_role: role, grant_products: products, ...tenant } = row;
  if (user) {
    const superAdmin = isSuperAdmin(role);
    const granted =
      superAdmin || ("staff" in access && parseProducts(products ?? "{}")[tenantId] === true);
    if (!granted) {
      throw new ApiError(
        "PERMISSION_DENIED",
        "superAdmin" in access ? API_MESSAGES.superAdminOnly : NOT_GRANTED,
      );
    }
  }
  return { tenant: viewOf(tenant), db: tenantDb(root, tenantId) };
}

/** A super admin's database for a tenant being created (no row yet to read a grant against). */
export function bindNewTenant(
  context: Readonly<RouterContextProvider>,
  tenantId: string,
  superAdmin: StaffUser,
): Db {
  if (!superAdmin.isSuperAdmin)
    throw new ApiError("PERMISSION_DENIED", API_MESSAGES.superAdminOnly);
  // Bound to the id as createTenant will store it; an invalid id is refused there, before any write.
  const id = tenantIdField.safeParse(tenantId);
  return tenantDb(crossTenant(scopeOf(context).db), id.success ? id.data : tenantId);
}
