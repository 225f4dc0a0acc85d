import { data } from "react-router";
import { namedTenantDbOf, scopeOf } from "../../../server/http/context";
import { handleMailerLiteWebhook } from "../../../server/providers/mailerlite-webhook";
import type { Route } from "./+types/mailerlite-webhook";

/**
 * POST /api/webhooks/mailerlite/{tenantId} — MailerLite tells that tenant that someone
 * unsubscribed or bounced. The URL names the tenant, not the Host; public, but only a call signed
 * with that tenant's webhook secret (its provider settings) changes anything, and only once.
 */
export async function action({ request, params, context }: Route.ActionArgs) {
  const scope = scopeOf(context);
  if (request.method !== "POST") throw data({ message: "Method not allowed" }, { status: 405 });
  const outcome = await handleMailerLiteWebhook(
    namedTenantDbOf(context),
    params.tenantId,
    await request.text(),
    request.headers.get("signature"),
  );
  if (!outcome.ok) {
    scope.logger.warn(
      { tenantId: params.tenantId, reason: outcome.message },
      "mailerlite webhook refused",
    );
    return Response.json({ error: outcome.message }, { status: outcome.status });
  }
  return Response.json({ applied: outcome.applied, replayed: outcome.replayed });
}

export function loader() {
  throw data({ message: "Method not allowed" }, { status: 405 });
}
