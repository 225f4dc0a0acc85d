import { requireApiStaff, requireApiSuperAdmin } from "../../../../server/api/auth";
import { readJson } from "../../../../server/api/errors";
import { answerApi, methodNotAllowed } from "../../../../server/api/route";
import { canManageTenant } from "../../../../server/auth/permissions";
import { scopeOf } from "../../../../server/http/context";
import { createTenant } from "../../../../server/tenants/admin";
import { bindNewTenant } from "../../../../server/tenants/named-tenant";
import { listTenantViews } from "../../../../server/tenants/views";
import { newTenantSchema, tenantSettingsSchema } from "../../../../shared/schemas/tenant";
import type { Route } from "./+types/index";

/** POST body: id, name and domain, plus any settings sections to start from. */
const createBody = newTenantSchema.extend(
  tenantSettingsSchema.omit({ name: true }).partial().shape,
);

/** GET /api/tenants — the tenants the caller may manage (all of them for a super admin). */
export async function loader({ request, context }: Route.LoaderArgs) {
  return answerApi(context, async () => {
    const caller = await requireApiStaff(context, request);
    const tenants = await listTenantViews(scopeOf(context).db);
    return {
      tenants: tenants
        .filter((tenant) => canManageTenant(caller.user, tenant.id))
        .map(({ id, name, domain, description, updatedAt }) => ({
          id,
          name,
          domain,
          description,
          updatedAt,
        })),
    };
  });
}

/** POST /api/tenants — super admins create a tenant. */
export async function action({ request, context }: Route.ActionArgs) {
  if (request.method !== "POST") return methodNotAllowed(["GET", "POST"]);
  return answerApi(
    context,
    async () => {
      const caller = await requireApiSuperAdmin(context, request);
      const { id, name, domain, ...settings } = await readJson(request, createBody);
      const tenant = await createTenant(
        bindNewTenant(context, id, caller.user),
        caller.actor,
        { id, name, domain },
        settings,
      );
      return { tenant };
    },
    201,
  );
}
