import { apiCaller } from "../../../../server/api/auth";
import { answerApi, methodNotAllowed } from "../../../../server/api/route";
import { scopeOf } from "../../../../server/http/context";
import { getTenantViewByDomain, tenantViewFor } from "../../../../server/tenants/views";
import type { Route } from "./+types/by-domain";

/** GET /api/tenants/domain/{domain} — the tenant served on a host; open like GET /api/tenants/{id}. */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  return answerApi(context, async () => {
    const caller = await apiCaller(context, request);
    const tenant = await getTenantViewByDomain(scopeOf(context).db, params.domain);
    return {
      tenant: tenantViewFor(caller?.user ?? null, tenant),
    };
  });
}

export function action() {
  return methodNotAllowed(["GET"]);
}
