import { methodNotAllowed, tenantPatchAction } from "../../../../server/api/route";
import { patchTenantEmailTemplates } from "../../../../server/tenants/patches";
import type { Route } from "./+types/email-templates";

/** PATCH /api/tenants/{id}/email-templates — super admins change some email template fields, the rest kept. */
export const action: (args: Route.ActionArgs) => Promise<Response> =
  tenantPatchAction(patchTenantEmailTemplates);

export function loader() {
  return methodNotAllowed(["PATCH"]);
}
