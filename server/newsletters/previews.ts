import { createHmac } from "node:crypto";
import { tenantDb } from "../db/tenant-guard";
import type { Scope, TenantScope } from "../scope";
import { signatureMatches } from "../secrets";
import { getNewsletter } from "./listing";
import type { Newsletter } from "./model";
import { previewKeyFor } from "./newsletters";

/*
 * Shareable previews (issue 15, part 5): a reviewer without an account reads a draft through a
 * signed link that expires after 7 days. The signature covers the newsletter's preview key, so
 * "Revoke share links" (a new key) ends every link given out before.
 * A link: /newsletter/preview/{id}.{expiry, base36 ms}.{HMAC-SHA256, 22 chars base64url}
 */

export const PREVIEW_LINK_DAYS = 7;
const TOKEN = /^([0-9a-f-]{36})\.([0-9a-z]{1,12})\.([A-Za-z0-9_-]{22})$/;

type SigningScope = TenantScope & Pick<Scope, "sessionSecret">;

const signature = (ctx: SigningScope, newsletterId: string, expires: string, key: string): Buffer =>
  createHmac("sha256", ctx.sessionSecret)
    .update(`newsletter-preview|${ctx.tenantId}|${newsletterId}|${expires}|${key}`)
    .digest()
    .subarray(0, 16);

/** A new preview link's path and when it stops working; null when there is no such newsletter. */
export async function createPreviewLink(
  ctx: SigningScope,
  newsletterId: string,
  now = Date.now(),
): Promise<{ path: string; expiresAt: string } | null> {
  const key = await previewKeyFor(ctx, newsletterId);
  if (!key) return null;
  const expiresAt = now + PREVIEW_LINK_DAYS * 86_400_000;
  const expires = expiresAt.toString(36);
  const mac = signature(ctx, newsletterId, expires, key).toString("base64url");
  return {
    path: `/newsletter/preview/${newsletterId}.${expires}.${mac}`,
    expiresAt: new Date(expiresAt).toISOString(),
  };
}

/** The newsletter a preview link shows, when the link is this tenant's, unexpired and unrevoked. */
export async function newsletterOfPreviewLink(
  ctx: SigningScope,
  token: string,
  now = Date.now(),
): Promise<{ newsletter: Newsletter; expiresAt: string } | null> {
  const match = TOKEN.exec(token);
  if (!match) return null;
  const [, id = "", expires = "", mac = ""] = match;
  const expiresAt = Number.parseInt(expires, 36);
  if (!Number.isSafeInteger(expiresAt) || expiresAt < now) return null;
  const row = await tenantDb(ctx.db, ctx.tenantId)
    .selectFrom("newsletters")
    .select("preview_key")
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row?.preview_key) return null;
  if (!signatureMatches(mac, signature(ctx, id, expires, row.preview_key))) return null;
  const newsletter = await getNewsletter(ctx, id);
  return newsletter ? { newsletter, expiresAt: new Date(expiresAt).toISOString() } : null;
}
