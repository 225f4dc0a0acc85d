import { signToken, verifyToken } from "../mail/tokens";
import { DEFAULT_TENANT_ID } from "../tenants/resolve";
import { getSubscriberById, type SubscriberView, type SubscriptionContext } from "./subscribers";

/*
 * The signed links that act for a subscriber (docs/decisions/015-subscriber-privacy.md): the
 * preference centre, unsubscribe and one-click unsubscribe of every list mail, and reading them back.
 */

/** How long a pending preference change, and its emailed link, lives (SPEC §9: 24 hours). */
export const PENDING_CHANGE_LIFETIME_MS = 86_400_000;

/**
 * An absolute link to a page of this tenant's site. A tenant without a domain shares APP_URL with
 * the default tenant, so its links name it with `subdomain=` (which selects it on localhost; on a
 * real host the tenant comes from the host name anyway).
 */
export function tenantLink(
  ctx: Pick<SubscriptionContext, "origin" | "tenant">,
  path: string,
): string {
  const url = new URL(path, ctx.origin);
  if (!ctx.tenant.domain && ctx.tenant.id !== DEFAULT_TENANT_ID)
    url.searchParams.set("subdomain", ctx.tenant.id);
  return url.toString();
}

/** Links that go into every list mail: the preference page for this subscriber, and one-click unsubscribe. */
export function subscriberLinks(
  ctx: SubscriptionContext,
  subscriber: { id: number; email: string },
) {
  const token = (purpose: "preferences" | "unsubscribe") =>
    signToken(ctx.sessionSecret, { purpose, tenantId: ctx.tenant.id, subscriberId: subscriber.id });
  const unsubscribeToken = token("unsubscribe");
  return {
    preferencesUrl: tenantLink(ctx, `/preferences/${token("preferences")}`),
    unsubscribeUrl: tenantLink(ctx, unsubscribePath(subscriber.email, unsubscribeToken)),
    oneClickUrl: tenantLink(ctx, `/subscription/one-click/${unsubscribeToken}`),
  };
}

/** SPEC's fixed unsubscribe link, signed: the page unsubscribes the token's subscriber in one step. */
export const unsubscribePath = (email: string, token: string) =>
  `/unsubscribe?${new URLSearchParams({ email, token })}`;

/** How long a link sent from the unsubscribe or preference page works (SPEC §9's 24 hours). */
export const SUBSCRIBER_LINK_LIFETIME_MS = 86_400_000;

/**
 * The subscriber a signed link names (its purpose, this tenant, not expired), or null. Signed links
 * are the only way a visitor reaches a subscriber's status or lists (docs/decisions/015-subscriber-privacy.md).
 */
export async function subscriberFromToken(
  ctx: SubscriptionContext,
  token: string | null | undefined,
  purpose: "unsubscribe" | "preferences" | "confirm-signup",
): Promise<SubscriberView | null> {
  const payload = verifyToken(ctx.sessionSecret, token, purpose);
  if (!payload || payload.tenantId !== ctx.tenant.id) return null;
  return getSubscriberById(ctx, payload.subscriberId);
}

/** A preference-centre path for a subscriber who has just proved who they are (24 hours). */
export function signedPreferencesPath(ctx: SubscriptionContext, subscriberId: number): string {
  const token = signToken(ctx.sessionSecret, {
    purpose: "preferences",
    tenantId: ctx.tenant.id,
    subscriberId,
    expiresAt: Date.now() + SUBSCRIBER_LINK_LIFETIME_MS,
  });
  return `/preferences/${token}`;
}

/** RFC 8058 headers for list mail: a signed one-click URL and a mailto. */
export function listUnsubscribeHeaders(
  ctx: SubscriptionContext,
  subscriber: { id: number; email: string },
  // The sender has the links already: signing them again costs a campaign 2 HMACs a message.
  { oneClickUrl }: { oneClickUrl: string } = subscriberLinks(ctx, subscriber),
) {
  return {
    "List-Unsubscribe": `<${oneClickUrl}>, <mailto:${ctx.tenant.email.senderEmail}?subject=unsubscribe>`,
    "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
  };
}
