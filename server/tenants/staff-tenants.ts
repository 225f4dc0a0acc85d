import type { StaffUser } from "../auth/permissions";
import { grantedTenants } from "../auth/permissions";
import type { Db } from "../db";
import { listTenants } from "./store";

/*
 * The tenant switcher (issue 35, decision 039): each tenant lives on its own host, and a session
 * cookie belongs to the host it was set on, so switching is a link to the other tenant's admin on
 * its host — where the staff member signs in if they have no session there yet.
 */

/** A path of a tenant's admin on that tenant's own host: its domain, or `?subdomain=` without one. */
export function tenantAdminHref(
  tenant: { id: string; domain: string | null },
  path: string,
): string {
  if (tenant.domain) return `https://${tenant.domain}${path}`;
  const separator = path.includes("?") ? "&" : "?";
  return `${path}${separator}subdomain=${encodeURIComponent(tenant.id)}`;
}

/** A tenant `user` may manage, with its dashboard's link; `current`: the request's tenant. */
export interface StaffTenant {
  id: string;
  name: string;
  href: string;
  current: boolean;
}

/** The tenants `user` may manage, by name, the request's tenant marked. */
export async function staffTenants(
  db: Db,
  user: StaffUser,
  currentTenantId: string,
): Promise<StaffTenant[]> {
  const tenants = await listTenants(db);
  const granted = new Set(
    grantedTenants(
      user,
      tenants.map((tenant) => tenant.id),
    ),
  );
  return tenants
    .filter((tenant) => granted.has(tenant.id))
    .map((tenant) => ({
      id: tenant.id,
      name: tenant.name,
      href: tenantAdminHref(tenant, "/admin/dashboard"),
      current: tenant.id === currentTenantId,
    }));
}
