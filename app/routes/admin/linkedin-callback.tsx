import { data, redirect } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { readCookieHeader, SESSION_COOKIE } from "../../../server/auth/sessions";
import { scopeOf } from "../../../server/http/context";
import { completeConnection, LinkedInConnectError } from "../../../server/linkedin/oauth";
import { AdminPage, BackLink } from "../../components/admin-header";
import { FormAlert } from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/linkedin-callback";

export const meta: Route.MetaFunction = () => noindexMeta("Connect LinkedIn");

/** /admin/linkedin/callback — where LinkedIn sends the staff member back with a code (or not). */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const user = requireTenantAccess(context);
  const scope = scopeOf(context);
  const session = readCookieHeader(request.headers.get("cookie"), SESSION_COOKIE) ?? "";
  let back: string;
  try {
    const { newsletterId } = await completeConnection(scope, session, url.searchParams, user.email);
    back = newsletterId ? `&newsletter=${encodeURIComponent(newsletterId)}` : "";
  } catch (error) {
    if (!(error instanceof LinkedInConnectError)) throw error;
    scope.logger.warn(
      { tenantId: scope.tenantId, reason: error.message },
      "linkedin not connected",
    );
    return data({ error: error.message }, { status: 400 });
  }
  scope.logger.info({ tenantId: scope.tenantId, actor: user.id }, "linkedin connected");
  // Back with the newsletter staff arrived with (the social pack's "Post it on LinkedIn").
  throw redirect(`/admin/linkedin?done=connected${back}`, 303);
}

export default function LinkedInCallback({ loaderData }: Route.ComponentProps) {
  return (
    <AdminPage title="Connect LinkedIn" width="narrow" className="space-y-6">
      <FormAlert errors={[loaderData.error]} />
      <BackLink to="/admin/linkedin">Back to LinkedIn</BackLink>
    </AdminPage>
  );
}
