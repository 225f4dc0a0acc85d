import { data, redirect } from "react-router";
import { recordClick } from "../../../server/campaigns/tracking";
import { verifyTrackingToken } from "../../../server/campaigns/tracking-links";
import { scopeOf } from "../../../server/http/context";
import { withEmailSource } from "../../../server/newsletters/view-sources";
import type { Route } from "./+types/track-click";

/**
 * GET /t/c/{token} — public: counts a click and redirects to the link it stands for. Only links that
 * were in the campaign can be reached, and a tampered token goes nowhere (not an open redirect).
 */
export async function loader({ params, context }: Route.LoaderArgs) {
  const scope = scopeOf(context);
  const verified = verifyTrackingToken(scope.sessionSecret, "click", params.token);
  const url = verified ? await recordClick(scope.db, verified.deliveryId, verified.link) : null;
  if (!url) throw data({ message: "This link is not valid." }, { status: 404 });
  // A link to one of the tenant's own newsletters counts its view under Email (decision 047).
  const target = url.startsWith(`${scope.origin}/newsletter/`) ? withEmailSource(url) : url;
  throw redirect(target, { status: 302, headers: { "cache-control": "no-store, private" } });
}
