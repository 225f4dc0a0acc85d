import { data, type RouterContextProvider } from "react-router";
import type { Access } from "../../app/route-access";
import { requireApiStaff, requireApiSuperAdmin } from "../api/auth";
import { apiErrorResponse } from "../api/errors";
import { scopeOf } from "../http/context";
import {
  requireStaff,
  requireSuperAdmin,
  requireTenantAccess,
  requireTenantManager,
} from "./guards";

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
  } catch (refusal) {
    if (isDataRefusal(refusal)) {
      throw data({ ...refusal.data, root: layoutData() }, refusal.init ?? undefined);
    }
    throw refusal;
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
