import { scopeOf } from "../../../server/http/context";
import { RATE_LIMITED_MESSAGE } from "../../../server/http/rate-limit";
import {
  READING_RETRY_AFTER_SECONDS,
  shareCardRateLimit,
  takeReading,
} from "../../../server/newsletters/reading-limits";
import { siteShareCard } from "../../../server/newsletters/share-card";
import type { Route } from "./+types/share-card";

/** GET /brand/share-card: the tenant's og:image for pages without one of their own (1200×630). */
export async function loader({ context }: Route.LoaderArgs) {
  const scope = scopeOf(context);
  if (!(await takeReading(shareCardRateLimit, scope))) {
    return new Response(RATE_LIMITED_MESSAGE, {
      status: 429,
      headers: {
        "Content-Type": "text/plain; charset=utf-8",
        "Retry-After": String(READING_RETRY_AFTER_SECONDS),
      },
    });
  }
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
