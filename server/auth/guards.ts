import { data, type RouterContextProvider, redirect } from "react-router";
import { tenantContext, userContext } from "../http/context";
import { canManageTenant, type StaffUser } from "./permissions";

type Context = Readonly<RouterContextProvider>;

/**
 * Throwing guards (DESIGN.md §2): every admin loader AND action calls one itself, because a
 * layout's loader does not protect its children.
 */
export function requireStaff(context: Context, request: Request): StaffUser {
  const user = context.get(userContext);
  if (!user) {
    const url = new URL(request.url);
    const back = `${url.pathname}${url.search}`;
    throw redirect(`/admin/login?redirectTo=${encodeURIComponent(back)}`);
  }
  return user;
}

/** Signed in and allowed to manage `tenantId` (default: the tenant of this site); else 403. */
export function requireTenantAccess(
  context: Context,
  request: Request,
  tenantId?: string,
): StaffUser {
  const user = requireStaff(context, request);
  const id = tenantId ?? context.get(tenantContext).id;
  if (!canManageTenant(user, id)) {
    throw data({ message: "You do not have access to this tenant." }, { status: 403 });
  }
  return user;
}

export function requireSuperAdmin(context: Context, request: Request): StaffUser {
  const user = requireStaff(context, request);
  if (!user.isSuperAdmin) {
    throw data({ message: "Only super admins may do this." }, { status: 403 });
  }
  return user;
}
