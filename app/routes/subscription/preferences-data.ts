import { data } from "react-router";
import { scopeOf } from "../../../server/http/context";
import { MESSAGES } from "../../../server/subscribers/errors";
import { subscriberFromToken } from "../../../server/subscribers/links";
import { exportSubscriberData } from "../../../server/subscribers/profiles";
import type { Route } from "./+types/preferences-data";

/**
 * GET /preferences/{token}/data.json — the subscriber's own data (GDPR Art. 15 and 20), for whoever
 * holds the signed preference link of their mail, as the preference centre itself is.
 */
export async function loader({ params, context }: Route.LoaderArgs) {
  const ctx = scopeOf(context);
  const subscriber = await subscriberFromToken(ctx, params.token, "preferences");
  if (!subscriber) throw data({ message: MESSAGES.invalidLink }, { status: 404 });
  const body = await exportSubscriberData(ctx, subscriber.id);
  return new Response(JSON.stringify(body, null, 2), {
    headers: {
      "content-type": "application/json; charset=utf-8",
      "content-disposition": 'attachment; filename="my-subscription-data.json"',
      "cache-control": "private, no-store",
      "referrer-policy": "no-referrer",
    },
  });
}
