import { data, type RouterContextProvider, redirect } from "react-router";
import type { Access } from "../../app/route-access";
import { requireApiStaff, requireApiSuperAdmin } from "../api/auth";
import { apiErrorResponse } from "../api/errors";
import { scopeOf, userContext } from "../http/context";
import {
  requireStaff,
  requireSuperAdmin,
  requireTenantAccess,
  requireTenantManager,
} from "./guards";
import { twoFactorRequired } from "./two-factor";

type Context = Readonly<RouterContextProvider>;

/**
 * Enforces a route's declared access (app/route-access.ts, looked up by the root middleware, which
 * passes `null` for a route with no declaration) before any loader or action runs.
 * The guards are the ones routes call themselves, so the answers — sign-in redirect, 403,
 * /unauthorized, the API's 401/403 envelope — are the same wherever a refusal comes from.
 */
export async function enforceRouteAccess(
  context: Context,
  request: Request,
  pattern: string,
  access: Access | undefined | null,
  /** the layout's data, which a refused page still needs (no loader runs after a middleware throws) */
  layoutData: () => unknown,
): Promise<void> {
  if (access === null) {
    // Refused, not guessed: every route declares its access (the route-access test lists them).
    throw new Error(`Route ${pattern} has no access declaration in app/route-access.ts`);
  }
  if (!access) return;
  try {
    await check(access, context, request);
    await requireEnrolledWhenRequired(context, request, access);
  } catch (refusal) {
    if (isDataRefusal(refusal)) {
      throw data({ ...refusal.data, root: layoutData() }, refusal.init ?? undefined);
    }
    throw refusal;
  }
}

/** Where staff without a second factor may still go while it is required: to set it up, or out. */
const ENROLMENT_PATHS = new Set(["/admin/account", "/admin/logout"]);
const STAFF_ACCESS: ReadonlySet<Access> = new Set([
  "staff",
  "tenant-staff",
  "super-admin",
  "tenant-manager",
]);

/**
 * The super admins' "Require two-factor sign-in for all staff": a signed-in staff member without
 * it is sent to set it up before any staff page opens (issue 14, part 4).
 */
async function requireEnrolledWhenRequired(context: Context, request: Request, access: Access) {
  const user = context.get(userContext);
  if (!user || user.twoFactor || !STAFF_ACCESS.has(access)) return;
  if (ENROLMENT_PATHS.has(new URL(request.url).pathname.replace(/\.data$/, ""))) return;
  if (await twoFactorRequired(scopeOf(context).db)) {
    throw redirect("/admin/account?required=1#two-factor");
  }
}

/** A guard's 403: `data({ message }, { status: 403 })`. Redirects and API answers are Responses. */
function isDataRefusal(
  value: unknown,
): value is { data: Record<string, unknown>; init: ResponseInit | null } {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { type?: string }).type === "DataWithResponseInit"
  );
}

async function check(access: Access, context: Context, request: Request) {
  switch (access) {
    case "staff":
      requireStaff(context, request);
      return;
    case "tenant-staff":
      requireTenantAccess(context, request);
      return;
    case "super-admin":
      requireSuperAdmin(context, request);
      return;
    case "tenant-manager":
      await requireTenantManager(context, request);
      return;
    case "api-staff":
    case "api-super-admin":
      try {
        await (access === "api-staff" ? requireApiStaff : requireApiSuperAdmin)(context, request);
      } catch (error) {
        throw apiErrorResponse(error, scopeOf(context).logger);
      }
      return;
    default:
      return;
  }
}
