import { data, type RouterContextProvider, redirect } from "react-router";
import { verifyAuthToken } from "../api/auth";
import { matchedRouteContext, scopeOf, userContext } from "../http/context";
import { canManageTenant, type StaffUser } from "./permissions";
import { readCookieHeader, SESSION_COOKIE } from "./sessions";

type Context = Readonly<RouterContextProvider>;

/**
 * Throwing guards (DESIGN.md §2): every admin loader AND action calls one itself, because a
 * layout's loader does not protect its children.
 */
export function requireStaff(context: Context): StaffUser {
  const user = context.get(userContext);
  if (!user) {
    const { url } = context.get(matchedRouteContext);
    const back = `${url.pathname}${url.search}`;
    throw redirect(`/admin/login?redirectTo=${encodeURIComponent(back)}`);
  }
  return user;
}

/** Signed in and allowed to manage `tenantId` (default: the tenant of this site); else 403. */
export function requireTenantAccess(context: Context, tenantId?: string): StaffUser {
  const user = requireStaff(context);
  const id = tenantId ?? scopeOf(context).tenant.id;
  if (!canManageTenant(user, id)) {
    throw data({ message: "You do not have access to this tenant." }, { status: 403 });
  }
  return user;
}

export function requireSuperAdmin(context: Context): StaffUser {
  const user = requireStaff(context);
  if (!user.isSuperAdmin) {
    throw data({ message: "Only super admins may do this." }, { status: 403 });
  }
  return user;
}

/**
 * The tenant manager's guard (SPEC §6): the session token is verified the way GET /api/auth/verify
 * verifies an x-auth-token; no valid token → /login keeping the path, not a super admin →
 * /unauthorized.
 */
export async function requireTenantManager(context: Context, request: Request): Promise<StaffUser> {
  const token = readCookieHeader(request.headers.get("cookie"), SESSION_COOKIE);
  const verified = token ? await verifyAuthToken(scopeOf(context).db, token) : null;
  if (!verified) {
    const { url } = context.get(matchedRouteContext);
    throw redirect(`/login?redirectTo=${encodeURIComponent(`${url.pathname}${url.search}`)}`);
  }
  if (!verified.user.isSuperAdmin) throw redirect("/unauthorized");
  return verified.user;
}
