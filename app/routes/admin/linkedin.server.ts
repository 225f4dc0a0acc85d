// The loader and action of linkedin.tsx.
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { readCookieHeader, SESSION_COOKIE } from "../../../server/auth/sessions";
import { scopeOf } from "../../../server/http/context";
import { LinkedInApi } from "../../../server/linkedin/api";
import { connectionStatus, removeConnection } from "../../../server/linkedin/connections";
import { LINKEDIN_MESSAGES } from "../../../server/linkedin/messages";
import { LinkedInConnectError, startConnection } from "../../../server/linkedin/oauth";
import {
  cancelPost,
  LinkedInPostError,
  listPosts,
  postableNewsletters,
  requestPost,
} from "../../../server/linkedin/posts";
import { linkedInFormSchema } from "../../../shared/schemas/linkedin";
import { zonedLocalToUtc } from "../../../shared/time-zone";
import type { Route } from "./+types/linkedin";

const NOTICES: Record<string, string> = {
  connected: LINKEDIN_MESSAGES.connected,
  disconnected: LINKEDIN_MESSAGES.disconnected,
  queued: LINKEDIN_MESSAGES.queued,
  scheduled: LINKEDIN_MESSAGES.scheduled,
  cancelled: LINKEDIN_MESSAGES.cancelled,
};

/** /admin/linkedin — the tenant's LinkedIn page: connect it, post newsletters, see how they went. */
export async function loader({ url, context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  const scope = scopeOf(context);
  return {
    configured: new LinkedInApi(scope.env).configured,
    connection: await connectionStatus(scope.db, scope.tenantId),
    posts: await listPosts(scope),
    newsletters: await postableNewsletters(scope),
    notice: NOTICES[url.searchParams.get("done") ?? ""] ?? null,
    chosen: url.searchParams.get("newsletter"),
  };
}

const refused = (message: string) => data({ errors: [message], confirm: null }, { status: 400 });

export async function action({ request, context }: Route.ActionArgs) {
  const user = requireTenantAccess(context);
  const scope = scopeOf(context);
  const submission = parseWithZod(await request.formData(), { schema: linkedInFormSchema });
  if (submission.status !== "success") {
    return refused(Object.values(submission.error ?? {}).flat()[0] ?? "Check the form.");
  }
  const form = submission.value;
  try {
    switch (form.intent) {
      case "connect": {
        const session = readCookieHeader(request.headers.get("cookie"), SESSION_COOKIE) ?? "";
        throw redirect(
          startConnection(scope, session, {
            kind: form.kind,
            organizationId: form.organizationId ?? null,
            newsletterId: form.newsletterId ?? null,
          }),
          303,
        );
      }
      case "disconnect":
        if (!form.confirmed) return { errors: [], confirm: "disconnect" as const };
        await removeConnection(scope.db, scope.tenantId);
        scope.logger.info({ tenantId: scope.tenantId, actor: user.id }, "linkedin disconnected");
        throw redirect("/admin/linkedin?done=disconnected", 303);
      case "post": {
        const at =
          form.when === "now"
            ? new Date().toISOString()
            : zonedLocalToUtc(form.at ?? "", scope.tenant.timeZone);
        if (!at) return refused(LINKEDIN_MESSAGES.badTime);
        await requestPost(scope, {
          newsletterId: form.newsletterId,
          dueAt: new Date(at),
          actor: user.email,
        });
        scope.worker?.poke();
        throw redirect(`/admin/linkedin?done=${form.when === "now" ? "queued" : "scheduled"}`, 303);
      }
      case "cancel":
        if (!(await cancelPost(scope, form.postId))) return refused(LINKEDIN_MESSAGES.notWaiting);
        throw redirect("/admin/linkedin?done=cancelled", 303);
    }
  } catch (error) {
    if (error instanceof LinkedInConnectError || error instanceof LinkedInPostError) {
      return refused(error.message);
    }
    throw error;
  }
}
