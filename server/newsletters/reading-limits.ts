import { createRateLimit, RATE_LIMITED_MESSAGE, type RateLimit } from "../http/rate-limit";

/*
 * Rate limits of the public reading routes that cost a query or a drawing per request (issue 32,
 * finding 14): search runs a full-text query, a share card may draw a picture. Per tenant and client
 * address, like sign-up and the look-ups; generous for a person, not for a script. A cached page
 * costs nothing and is not limited.
 */

/** A person types a few searches a minute; 30 is far above that, and caps a script at 0.5/s. */
export const searchRateLimit = createRateLimit({ name: "search", points: 30, windowSeconds: 60 });

/** A page's share card is fetched once per link preview; a feed reader or crawler takes a few. */
export const shareCardRateLimit = createRateLimit({
  name: "share-card",
  points: 60,
  windowSeconds: 60,
});

/** Seconds a limited client should wait (both windows are a minute). */
export const READING_RETRY_AFTER_SECONDS = 60;

/** Counts one request of this client on this tenant; false when it has used its allowance. */
export function takeReading(
  limit: RateLimit,
  scope: { tenantId: string; clientAddress: string },
): Promise<boolean> {
  return limit.take(`${scope.tenantId}:${scope.clientAddress}`);
}

/** Counts a share card; the 429 its client gets when over the limit, or null to draw it. */
export async function shareCardRefusal(scope: {
  tenantId: string;
  clientAddress: string;
}): Promise<Response | null> {
  if (await takeReading(shareCardRateLimit, scope)) return null;
  return new Response(RATE_LIMITED_MESSAGE, {
    status: 429,
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "Retry-After": String(READING_RETRY_AFTER_SECONDS),
    },
  });
}
