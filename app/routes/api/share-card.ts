import { scopeOf } from "../../../server/http/context";
import { shareCardRefusal } from "../../../server/newsletters/reading-limits";
import { siteShareCard } from "../../../server/newsletters/share-card";
import type { Route } from "./+types/share-card";

/** GET /brand/share-card: the tenant's og:image for pages without one of their own (1200×630). */
export async function loader({ context }: Route.LoaderArgs) {
  const scope = scopeOf(context);
  const refused = await shareCardRefusal(scope);
  if (refused) return refused;
  const card = await siteShareCard(scope.tenantId, scope.tenant.branding);
  return new Response(new Uint8Array(card.bytes), {
    headers: {
      "Content-Type": card.contentType,
      "Content-Length": String(card.bytes.length),
      "Cache-Control": "public, max-age=3600",
      Vary: "Host",
      "X-Content-Type-Options": "nosniff",
      "Cross-Origin-Resource-Policy": "cross-origin",
    },
  });
}
