import { apiCaller, requireApiSuperAdmin } from "../../../../server/api/auth";
import { readJson } from "../../../../server/api/errors";
import { answerApi, methodNotAllowed } from "../../../../server/api/route";
import { scopeOf } from "../../../../server/http/context";
import { deleteTenant, saveTenantSettings } from "../../../../server/tenants/admin";
import { bindNamedTenant } from "../../../../server/tenants/named-tenant";
import { getTenantView, tenantViewFor } from "../../../../server/tenants/views";
import { domainField, tenantSettingsSchema } from "../../../../shared/schemas/tenant";
import { z } from "../../../../shared/zod";
import type { Route } from "./+types/tenant";

/**
 * PUT body: the whole of the settings (missing fields are errors, not resets), domain optional.
 * GET answers null for "no domain" and "no mail-list group", so a GET → PUT round trip takes them.
 */
const putBody = tenantSettingsSchema.extend({
  mailerLiteGroupId: z.preprocess(
    (value) => (value === null ? "" : value),
    tenantSettingsSchema.shape.mailerLiteGroupId,
  ),
  domain: domainField.nullable().optional(),
});

/**
 * GET /api/tenants/{id} — open: anyone reads a brand's public face; staff who manage the tenant
 * also get its templates and email settings.
 */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  return answerApi(context, async () => {
    const caller = await apiCaller(context, request);
    // A tenant's row, of no tenant: read on the request's database.
    const tenant = await getTenantView(scopeOf(context).db, params.id);
    return {
      tenant: tenantViewFor(caller?.user ?? null, tenant),
    };
  });
}

/** PUT replaces the settings; DELETE removes the tenant (?force=true when it has data). */
export async function action({ request, url, params, context }: Route.ActionArgs) {
  if (request.method === "PUT") {
    return answerApi(context, async () => {
      const caller = await requireApiSuperAdmin(context, request);
      const { domain, ...settings } = await readJson(request, putBody);
      const { db } = await bindNamedTenant(context, params.id, { superAdmin: caller.user });
      return { tenant: await saveTenantSettings(db, caller.actor, params.id, settings, domain) };
    });
  }
  if (request.method === "DELETE") {
    return answerApi(context, async () => {
      const caller = await requireApiSuperAdmin(context, request);
      const force = z
        .enum(["true", "false", "1", "0"], { error: "force must be true or false" })
        .optional()
        .parse(url.searchParams.get("force") ?? undefined);
      const { db } = await bindNamedTenant(context, params.id, { superAdmin: caller.user });
      return deleteTenant(db, caller.actor, params.id, force === "true" || force === "1");
    });
  }
  return methodNotAllowed(["GET", "PUT", "DELETE"]);
}
