import { methodNotAllowed, tenantPatchAction } from "../../../../server/api/route";
import { patchTenantBranding } from "../../../../server/tenants/patches";
import type { Route } from "./+types/branding";

/** PATCH /api/tenants/{id}/branding — super admins change some branding fields, the rest kept. */
export const action: (args: Route.ActionArgs) => Promise<Response> =
  tenantPatchAction(patchTenantBranding);

export function loader() {
  return methodNotAllowed(["PATCH"]);
}
