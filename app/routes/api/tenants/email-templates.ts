import { z } from "zod";
import { requireApiSuperAdmin } from "../../../../server/api/auth";
import { readJson } from "../../../../server/api/errors";
import { answerApi, methodNotAllowed } from "../../../../server/api/route";
import { requestContext } from "../../../../server/http/context";
import { patchTenantEmailTemplates } from "../../../../server/tenants/admin";
import type { Route } from "./+types/email-templates";

/** PATCH /api/tenants/{id}/email-templates — super admins change some email template fields. */
export async function action({ request, params, context }: Route.ActionArgs) {
  if (request.method !== "PATCH") return methodNotAllowed(["PATCH"]);
  return answerApi(context, async () => {
    const caller = await requireApiSuperAdmin(context, request);
    const body = await readJson(request, z.unknown());
    const tenant = await patchTenantEmailTemplates(
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
