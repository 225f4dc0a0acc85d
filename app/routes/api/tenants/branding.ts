import { z } from "zod";
import { requireApiSuperAdmin } from "../../../../server/api/auth";
import { readJson } from "../../../../server/api/errors";
import { answerApi, methodNotAllowed } from "../../../../server/api/route";
import { requestContext } from "../../../../server/http/context";
import { patchTenantBranding } from "../../../../server/tenants/admin";
import type { Route } from "./+types/branding";

/** PATCH /api/tenants/{id}/branding — super admins change some branding fields. */
export async function action({ request, params, context }: Route.ActionArgs) {
  if (request.method !== "PATCH") return methodNotAllowed(["PATCH"]);
  return answerApi(context, async () => {
    const caller = await requireApiSuperAdmin(context, request);
    const body = await readJson(request, z.unknown());
    const tenant = await patchTenantBranding(
      context.get(requestContext).db,
      caller.actor,
      params.id,
      body,
    );
    return { tenant };
  });
}

export function loader() {
  return methodNotAllowed(["PATCH"]);
}
