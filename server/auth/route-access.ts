import { data, type RouterContextProvider, redirect } from "react-router";
import type { Access } from "../../app/route-access";
import { requireApiStaff, requireApiSuperAdmin } from "../api/auth";
import { apiErrorResponse } from "../api/errors";
import { enrolmentOnlyContext, scopeOf, userContext } from "../http/context";
import {
  requireStaff,
  requireSuperAdmin,
  requireTenantAccess,
  requireTenantManager,
} from "./guards";
import { heldForEnrolment } from "./two-factor";

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
  await admitSession(context, pattern);
  if (!access) return;
  try {
    holdUnenrolled(context, access);
    await check(access, context, request);
  } catch (refusal) {
    if (isDataRefusal(refusal)) {
      throw data({ ...refusal.data, root: layoutData() }, refusal.init ?? undefined);
    }
    throw refusal;
  }
}

/** Where an enrolment-only session may go: to set up two-factor sign-in, or out (route patterns). */
const ENROLMENT_ROUTES = new Set(["/admin/account", "/admin/logout"]);
const STAFF_ACCESS: ReadonlySet<Access> = new Set([
  "staff",
  "tenant-staff",
  "super-admin",
  "tenant-manager",
]);

/**
 * The super admins' "Require two-factor sign-in for all staff" (issue 14 part 4; issue 32 finding
 * 1): a staff member without a second factor holds an enrolment-only session. It is the user
 * only on the enrolment routes; everywhere else the request is treated as signed out, with the
 * held user set aside so staff pages send them to enrolment and the APIs refuse them
 * (server/api/auth.ts). Fail-safe: anything that reads userContext sees nobody.
 */
async function admitSession(context: Context, pattern: string): Promise<void> {
  const user = context.get(userContext);
  if (!user || !(await heldForEnrolment(scopeOf(context).db, user))) return;
  context.set(enrolmentOnlyContext, user);
  if (!ENROLMENT_ROUTES.has(pattern.startsWith("/") ? pattern : `/${pattern}`)) {
    context.set(userContext, null);
  }
}

/** A staff page asked for by an enrolment-only session: set up two-factor sign-in first. */
function holdUnenrolled(context: Context, access: Access) {
  if (context.get(userContext) || !context.get(enrolmentOnlyContext)) return;
  if (STAFF_ACCESS.has(access)) throw redirect("/admin/account?required=1#two-factor");
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
      requireStaff(context);
      return;
    case "tenant-staff":
      requireTenantAccess(context);
      return;
    case "super-admin":
      requireSuperAdmin(context);
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
