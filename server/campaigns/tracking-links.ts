import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Per-recipient tracking links: the open pixel and click redirects carry the delivery id, the link's
 * number and an HMAC over both, so nobody can count opens for someone else or send a click anywhere
 * that was not in the campaign (the number indexes the campaign's own list of links).
 */
export type TrackingKind = "open" | "click";

const SIGNATURE_BYTES = 16;

function signature(secret: string, kind: TrackingKind, deliveryId: number, link: number): Buffer {
  return createHmac("sha256", secret)
    .update(`${kind}:${deliveryId}:${link}`)
    .digest()
    .subarray(0, SIGNATURE_BYTES);
}

/** The token in /t/o/{token} and /t/c/{token}: "{deliveryId}.{link}.{signature}". */
export function signTrackingToken(
  secret: string,
  kind: TrackingKind,
  deliveryId: number,
  link = 0,
): string {
  return `${deliveryId}.${link}.${signature(secret, kind, deliveryId, link).toString("base64url")}`;
}

export function verifyTrackingToken(
  secret: string,
  kind: TrackingKind,
  token: string,
): { deliveryId: number; link: number } | null {
  const match = /^(\d{1,12})\.(\d{1,4})\.([A-Za-z0-9_-]{20,24})$/.exec(token);
  if (!match) return null;
  const deliveryId = Number(match[1]);
  const link = Number(match[2]);
  const actual = Buffer.from(match[3] ?? "", "base64url");
  const expected = signature(secret, kind, deliveryId, link);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return null;
  return { deliveryId, link };
}

const LINK = /(<a\b[^>]*?\bhref=")(https?:\/\/[^"]+)(")/gi;

/** The distinct http(s) links of the content, in order of first appearance. */
export function extractLinks(html: string): string[] {
  return [...new Set([...html.matchAll(LINK)].map((match) => decodeEntities(match[2] ?? "")))];
}

/** Replaces each http(s) link with the marker that the sender fills with the recipient's click URL. */
export function markLinks(html: string, links: readonly string[]): string {
  return html.replace(LINK, (whole, start: string, url: string, end: string) => {
    const index = links.indexOf(decodeEntities(url));
    return index === -1 ? whole : `${start}${clickMarker(index)}${end}`;
  });
}

export const clickMarker = (index: number) => `%%HERALD_CLICK_${index}%%`;

function decodeEntities(url: string): string {
  return url.replaceAll("&amp;", "&");
}
