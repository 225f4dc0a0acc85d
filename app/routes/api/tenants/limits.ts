import { requireApiSuperAdmin } from "../../../../server/api/auth";
import { readJson } from "../../../../server/api/errors";
import { answerApi, methodNotAllowed } from "../../../../server/api/route";
import { scopeOf } from "../../../../server/http/context";
import { patchTenantLimits, tenantLimitsView } from "../../../../server/tenants/limits-api";
import { bindNamedTenant } from "../../../../server/tenants/named-tenant";
import { z } from "../../../../shared/zod";
import type { Route } from "./+types/limits";

/** GET /api/tenants/{id}/limits — super admins read a tenant's limits and its usage (decision 057). */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  return answerApi(context, async () => {
    const caller = await requireApiSuperAdmin(context, request);
    const { db } = await bindNamedTenant(context, params.id, { superAdmin: caller.user });
    return { limits: await tenantLimitsView(db, params.id, scopeOf(context).env) };
  });
}

/** PATCH /api/tenants/{id}/limits — super admins change some limits; null: back to the default. */
export async function action({ request, params, context }: Route.ActionArgs) {
  if (request.method !== "PATCH") return methodNotAllowed(["GET", "PATCH"]);
  return answerApi(context, async () => {
    const caller = await requireApiSuperAdmin(context, request);
    const body = await readJson(request, z.unknown());
    const { db } = await bindNamedTenant(context, params.id, { superAdmin: caller.user });
    const env = scopeOf(context).env;
    return { limits: await patchTenantLimits(db, caller.actor, params.id, body, env) };
  });
}
