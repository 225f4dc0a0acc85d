import type { Transaction } from "kysely";
import type { Db } from "../db";
import type { Database, SubscriberStatus } from "../db/schema";
import { crossTenant } from "../db/tenant-guard";
import type { OutgoingMessage } from "../mail/transport";
import { countFeedback } from "../metrics";
import { updateSubscriber } from "../subscribers/store";
import { addCampaignEvent } from "./campaign-events";
import { cancelPendingDeliveries, markDeliveryFeedback } from "./deliveries";
import { signDeliveryToken, verifyDeliveryToken } from "./tracking-links";

/**
 * Bounces and complaints (issue 12, part 6; docs/decisions/013-bounces.md). Every campaign message
 * goes out with a VERP envelope sender, bounces+{signed delivery token}@{BOUNCE_DOMAIN}, and the
 * same token in its X-Herald-Delivery header, so a bounce (DSN) or complaint (ARF) that comes back
 * names its delivery, and nobody can bounce a delivery they were not sent. A hard bounce or a
 * complaint marks the delivery and suppresses the subscriber for the tenant.
 */

export const DELIVERY_HEADER = "X-Herald-Delivery";

/** Statuses that are never mailed (campaigns, welcome, preference mail) until they confirm again. */
export const SUPPRESSED_STATUSES = ["bounced", "complained"] as const satisfies SubscriberStatus[];

export function isSuppressed(status: SubscriberStatus): boolean {
  return (SUPPRESSED_STATUSES as readonly string[]).includes(status);
}

export function verpAddress(secret: string, bounceDomain: string, deliveryId: number): string {
  return `bounces+${signDeliveryToken(secret, deliveryId)}@${bounceDomain}`;
}

/** The token of a bounces+{token}@{bounceDomain} address (not yet verified); null for any other address. */
export function verpToken(address: string, bounceDomain: string): string | null {
  const match = /^bounces\+([A-Za-z0-9._-]{1,56})@([^@\s]+)$/i.exec(address.trim());
  if (!match || match[2]?.toLowerCase() !== bounceDomain.toLowerCase()) return null;
  return match[1] ?? null;
}

/** A campaign message with its VERP envelope sender and X-Herald-Delivery header. */
export function withBounceAddress<T extends OutgoingMessage>(
  message: T,
  options: { secret: string; bounceDomain: string; deliveryId: number },
): T {
  return {
    ...message,
    envelopeFrom: verpAddress(options.secret, options.bounceDomain, options.deliveryId),
    headers: {
      ...message.headers,
      [DELIVERY_HEADER]: signDeliveryToken(options.secret, options.deliveryId),
    },
  };
}

/** The delivery a token names, when its signature is right. */
export function deliveryOfToken(secret: string, token: string | null | undefined): number | null {
  return token ? verifyDeliveryToken(secret, token) : null;
}

export type FeedbackKind = "bounce" | "complaint";

export type FeedbackOutcome = "recorded" | "already-recorded" | "no-such-delivery";

/**
 * Records a hard bounce or a complaint inside the caller's transaction: marks the delivery (once:
 * a repeated report changes nothing), counts it in the campaign's report, suppresses the subscriber
 * for the tenant (a complaint outranks a bounce) and cancels what was still waiting to be sent to them.
 */
export async function recordFeedbackIn(
  trx: Transaction<Database>,
  input: { deliveryId: number; kind: FeedbackKind; detail: string; at?: string },
): Promise<FeedbackOutcome> {
  return (await recordFeedbackOf(trx, input)).outcome;
}

/** recordFeedbackIn, also saying whose delivery it was (for /metrics, counted after commit). */
async function recordFeedbackOf(
  trx: Transaction<Database>,
  input: { deliveryId: number; kind: FeedbackKind; detail: string; at?: string },
): Promise<{ outcome: FeedbackOutcome; tenantId?: string }> {
  const at = input.at ?? new Date().toISOString();
  // A report names a delivery, not a tenant (its token is signed): the delivery says whose it is.
  const delivery = await crossTenant(trx)
    .selectFrom("deliveries")
    .innerJoin("campaigns", "campaigns.id", "deliveries.campaign_id")
    .select([
      "deliveries.id",
      "deliveries.campaign_id",
      "deliveries.subscriber_id",
      "campaigns.tenant_id",
    ])
    .where("deliveries.id", "=", input.deliveryId)
    .executeTakeFirst();
  if (!delivery) return { outcome: "no-such-delivery" };
  const column = input.kind === "bounce" ? "bounced_at" : "complained_at";
  const marked = await markDeliveryFeedback(trx, delivery.tenant_id, delivery.id, {
    column,
    at,
    detail: input.detail,
  });
  if (!marked) return { outcome: "already-recorded", tenantId: delivery.tenant_id };
  await addCampaignEvent(trx, {
    tenantId: delivery.tenant_id,
    campaignId: delivery.campaign_id,
    deliveryId: delivery.id,
    kind: input.kind,
    at,
  });
  const status: SubscriberStatus = input.kind === "bounce" ? "bounced" : "complained";
  await updateSubscriber(trx, delivery.tenant_id, delivery.subscriber_id, { status }, at, {
    // a complaint outranks a bounce; a bounce does not hide an earlier complaint
    unlessStatusIn: input.kind === "bounce" ? ["bounced", "complained"] : ["complained"],
  });
  await cancelPendingDeliveries(trx, delivery.tenant_id, {
    subscriberId: delivery.subscriber_id,
    reason: `Suppressed: ${status}`,
  });
  return { outcome: "recorded", tenantId: delivery.tenant_id };
}

export async function recordDeliveryFeedback(
  db: Db,
  input: { deliveryId: number; kind: FeedbackKind; detail: string; at?: string },
): Promise<FeedbackOutcome> {
  const { outcome, tenantId } = await db
    .transaction()
    .execute((trx) => recordFeedbackOf(trx, input));
  if (outcome === "recorded" && tenantId) {
    countFeedback(input.kind === "bounce" ? "bounced" : "complained", tenantId);
  }
  return outcome;
}
