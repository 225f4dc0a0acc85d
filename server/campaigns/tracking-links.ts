import { createHmac, timingSafeEqual } from "node:crypto";
import { signatureMatches } from "../secrets";

/**
 * Per-recipient tracking links: the open pixel and click redirects carry the delivery id, the link's
 * number and an HMAC over both, so nobody can count opens for someone else or send a click anywhere
 * that was not in the campaign (the number indexes the campaign's own list of links).
 */
export type TrackingKind = "open" | "click";
/** "bounce" signs a delivery's VERP envelope sender and X-Herald-Delivery header (server/campaigns/bounces.ts). */
type SignedKind = TrackingKind | "bounce";

const SIGNATURE_BYTES = 16;

function signature(secret: string, kind: SignedKind, deliveryId: number, link: number): Buffer {
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
  if (!signatureMatches(match[3] ?? "", signature(secret, kind, deliveryId, link))) return null;
  return { deliveryId, link };
}

/** VERP tokens hold 12 signature bytes in lower-case hex: mail systems may change the case of a local part. */
const DELIVERY_SIGNATURE_BYTES = 12;

/**
 * The token of a campaign delivery in its VERP envelope sender (`bounces+{token}@…`) and its
 * X-Herald-Delivery header: "{deliveryId}.{24 hex}", at most 37 characters, so the local part stays
 * far below SMTP's 64.
 */
export function signDeliveryToken(secret: string, deliveryId: number): string {
  const mac = signature(secret, "bounce", deliveryId, 0).subarray(0, DELIVERY_SIGNATURE_BYTES);
  return `${deliveryId}.${mac.toString("hex")}`;
}

export function verifyDeliveryToken(secret: string, token: string): number | null {
  const match = /^(\d{1,12})\.([0-9a-f]{24})$/.exec(token.toLowerCase());
  if (!match) return null;
  const deliveryId = Number(match[1]);
  const actual = Buffer.from(match[2] ?? "", "hex");
  const expected = signature(secret, "bounce", deliveryId, 0).subarray(0, DELIVERY_SIGNATURE_BYTES);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return null;
  return deliveryId;
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

/**
 * A campaign mail without its open pixel: what staff see in the outbox, so looking at a message
 * there never counts as the recipient's open (issue 16, point 8).
 */
export function withoutOpenPixel(html: string): string {
  return html.replace(/<img\b[^>]*\/t\/o\/[^>]*>/gi, "");
}
