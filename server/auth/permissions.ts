import type { UserRow } from "../db/schema";
/**
 * SPEC §6: role 'super_admin' gives full access; anyone else has a product only when the products
 * map has that key set to exactly true. No permissions record means no access.
 */
export const SUPER_ADMIN_ROLE = "super_admin";

export type Products = Record<string, boolean>;

export interface StaffUser {
  id: string;
  email: string;
  role: string;
  products: Products;
  isSuperAdmin: boolean;
  /** signs in with a TOTP code after the password */
  twoFactor: boolean;
}

export function isSuperAdmin(role: string | null | undefined): boolean {
  return role === SUPER_ADMIN_ROLE;
}

export function hasProduct(user: StaffUser | null, product: string): boolean {
  if (!user) return false;
  return user.isSuperAdmin || user.products[product] === true;
}

/** The tenants whose newsletters a user may manage (DESIGN.md §7.7): a tenant id is a product key. */
export function canManageTenant(user: StaffUser | null, tenantId: string): boolean {
  return hasProduct(user, tenantId);
}

export function grantedTenants(user: StaffUser, allTenantIds: readonly string[]): string[] {
  return user.isSuperAdmin
    ? [...allTenantIds]
    : allTenantIds.filter((id) => user.products[id] === true);
}

/** Where a user lands after sign-in (SPEC §2 /admin/login). */
export function landingPathFor(user: StaffUser): string {
  if (user.isSuperAdmin) return "/admin/dashboard";
  if (user.products.keydiscovery === true) return "/admin/cms";
  return "/";
}

const REDIRECT_BASE = "http://herald.invalid";

/**
 * A redirect target is honoured only when it stays on this site (issue 32, finding 2). The one
 * check for every redirect after sign-in, sign-out, two-factor and moderation: normalise first
 * (resolve against a fixed origin as a browser would: dot segments, backslashes, tabs, %2e), then
 * decide on the result, which must be a path of this origin: one "/" and then neither "/" nor "\"
 * (a Location of "//host" or "/\host" leaves the site). Returns the normalised path or null.
 */
export function safeRedirectPath(target: string | null | undefined): string | null {
  if (!target?.startsWith("/")) return null;
  let url: URL;
  try {
    url = new URL(target, REDIRECT_BASE);
  } catch {
    return null;
  }
  if (url.origin !== REDIRECT_BASE) return null;
  const path = `${url.pathname}${url.search}${url.hash}`;
  return /^\/[^/\\]/.test(path) || path === "/" ? path : null;
}

/** Reads the stored products map, keeping only keys set to exactly true. */
export function parseProducts(json: string): Products {
  try {
    const value: unknown = JSON.parse(json);
    if (!value || typeof value !== "object" || Array.isArray(value)) return {};
    return Object.fromEntries(
      Object.entries(value).filter(([, granted]) => granted === true),
    ) as Products;
  } catch {
    return {};
  }
}

/** A users row as the rest of Herald sees a staff member. */
export function toStaffUser(row: UserRow): StaffUser {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    products: parseProducts(row.products),
    isSuperAdmin: isSuperAdmin(row.role),
    twoFactor: row.totp_enabled_at !== null,
  };
}
