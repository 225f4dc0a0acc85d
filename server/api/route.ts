import type { RouterContextProvider } from "react-router";
import { z } from "zod";
import type { Db } from "../db";
import { scopeOf } from "../http/context";
import { bindNamedTenant } from "../tenants/named-tenant";
import type { TenantView } from "../tenants/views";
import { requireApiSuperAdmin } from "./auth";
import { apiErrorResponse, jsonResponse, readJson } from "./errors";

type Context = Readonly<RouterContextProvider>;

/**
 * Runs an API route's work and answers JSON: its value with 200 (or the Response it built), or
 * the SPEC §8 error envelope for whatever it threw.
 */
export async function answerApi(
  context: Context,
  work: () => Promise<unknown>,
  status = 200,
): Promise<Response> {
  try {
    const value = await work();
    return value instanceof Response ? value : jsonResponse(value, status);
  } catch (error) {
    if (error instanceof Response) return error;
    return apiErrorResponse(error, scopeOf(context).logger);
  }
}

export function methodNotAllowed(allowed: string[]): Response {
  return Response.json(
    { error: { status: "INVALID_ARGUMENT", message: `Use ${allowed.join(" or ")}` } },
    { status: 405, headers: { allow: allowed.join(", "), "cache-control": "no-store" } },
  );
}

/** PATCH /api/tenants/{id}/… : super admins change part of a tenant through `patch`. */
export function tenantPatchAction(
  patch: (db: Db, actor: string, id: string, body: unknown) => Promise<TenantView>,
) {
  return async ({
    request,
    params,
    context,
  }: {
    request: Request;
    params: { id: string };
    context: Context;
  }): Promise<Response> => {
    if (request.method !== "PATCH") return methodNotAllowed(["PATCH"]);
    return answerApi(context, async () => {
      const caller = await requireApiSuperAdmin(context, request);
      const body = await readJson(request, z.unknown());
      const { db } = await bindNamedTenant(context, params.id, { superAdmin: caller.user });
      return { tenant: await patch(db, caller.actor, params.id, body) };
    });
  };
}
