import { data } from "react-router";
import { scopeOf } from "../../../server/http/context";
import { handleMailerLiteWebhook } from "../../../server/providers/mailerlite-webhook";
import type { Route } from "./+types/mailerlite-webhook";

/**
 * POST /api/webhooks/mailerlite — MailerLite tells the tenant (by host, as for every request) that
 * someone unsubscribed or bounced. Public, but only a call signed with MAILERLITE_WEBHOOK_SECRET
 * changes anything.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const scope = scopeOf(context);
  if (request.method !== "POST") throw data({ message: "Method not allowed" }, { status: 405 });
  const outcome = await handleMailerLiteWebhook(
    scope.db,
    scope.tenantId,
    scope.env.MAILERLITE_WEBHOOK_SECRET,
    await request.text(),
    request.headers.get("signature"),
  );
  if (!outcome.ok) {
    scope.logger.warn({ reason: outcome.message }, "mailerlite webhook refused");
    return Response.json({ error: outcome.message }, { status: outcome.status });
  }
  return Response.json({ applied: outcome.applied });
}

export function loader() {
  throw data({ message: "Method not allowed" }, { status: 405 });
}
