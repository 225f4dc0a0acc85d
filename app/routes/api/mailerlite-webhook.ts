import { data } from "react-router";
import { ApiError } from "../../../server/api/errors";
import { scopeOf } from "../../../server/http/context";
import { handleMailerLiteWebhook } from "../../../server/providers/mailerlite-webhook";
import { bindNamedTenant } from "../../../server/tenants/named-tenant";
import type { Route } from "./+types/mailerlite-webhook";

/**
 * POST /api/webhooks/mailerlite/{tenantId} — MailerLite tells that tenant that someone
 * unsubscribed or bounced. The URL names the tenant, not the Host; public, but only a call signed
 * with that tenant's webhook secret (its provider settings) changes anything, and only once.
 */
export async function action({ request, params, context }: Route.ActionArgs) {
  const scope = scopeOf(context);
  if (request.method !== "POST") throw data({ message: "Method not allowed" }, { status: 405 });
  const named = await bindNamedTenant(context, params.tenantId, {
    anyone: "signed by the tenant's webhook secret",
  }).catch((error: unknown) => {
    if (error instanceof ApiError && error.status === "NOT_FOUND") return null;
    throw error;
  });
  const body = await request.text();
  // An unknown tenant has no secret: answered as a bad signature, not told apart.
  const outcome = named
    ? await handleMailerLiteWebhook(
        named.db,
        params.tenantId,
        body,
        request.headers.get("signature"),
      )
    : ({ ok: false, status: 401, message: "Invalid signature" } as const);
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
