import { recordOpen } from "../../../server/campaigns/tracking";
import { verifyTrackingToken } from "../../../server/campaigns/tracking-links";
import { scopeOf, userContext } from "../../../server/http/context";
import type { Route } from "./+types/track-open";

// The smallest transparent GIF.
const PIXEL = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");

/** GET /t/o/{token}.gif — public: counts an open of a campaign mail, answers a 1×1 image either way. */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  const scope = scopeOf(context);
  const token = params.token.replace(/\.gif$/, "");
  const verified = verifyTrackingToken(scope.sessionSecret, "open", token);
  // Staff looking at a campaign mail while signed in (its preview, the outbox) are not readers.
  if (verified && !context.get(userContext)) {
    await recordOpen(scope.db, verified.deliveryId, request.headers.get("user-agent")).catch(
      (error: unknown) => scope.logger.warn({ err: error }, "open not recorded"),
    );
  }
  return new Response(PIXEL, {
    headers: {
      "content-type": "image/gif",
      "cache-control": "no-store, private",
      "x-robots-tag": "noindex",
      // Loaded by mail clients on other origins; helmet's default (same-origin) would refuse it.
      "cross-origin-resource-policy": "cross-origin",
    },
  });
}
