import type { Db } from "../db";
import { crossTenant, tenantDb } from "../db/tenant-guard";
import { addCampaignEvent, addImpliedOpen } from "./campaign-events";
import { isMachineOpen } from "./machine-opens";

/**
 * Opens and clicks from campaign mail (the tokens are checked by the route before this is called).
 * Every load is an event; reports count unique recipients by delivery.
 */
async function deliveryOf(db: Db, deliveryId: number) {
  // A signed token names the delivery, whichever host the mail client opens it on: its campaign says whose.
  return crossTenant(db)
    .selectFrom("deliveries")
    .innerJoin("campaigns", "campaigns.id", "deliveries.campaign_id")
    .select([
      "deliveries.id",
      "deliveries.campaign_id",
      "deliveries.tenant_id",
      "campaigns.track_opens",
      "campaigns.track_clicks",
      "campaigns.links",
    ])
    .where("deliveries.id", "=", deliveryId)
    .executeTakeFirst();
}

/** Counts an open; one a machine made (a proxy, a scanner) is kept apart (machine-opens.ts). */
export async function recordOpen(
  db: Db,
  deliveryId: number,
  userAgent: string | null = null,
): Promise<void> {
  const delivery = await deliveryOf(db, deliveryId);
  if (delivery?.track_opens !== 1) return;
  await addCampaignEvent(db, {
    tenantId: delivery.tenant_id,
    campaignId: delivery.campaign_id,
    deliveryId: delivery.id,
    kind: "open",
    at: new Date().toISOString(),
    machine: isMachineOpen(userAgent),
  });
}

/** The campaign's link number `link`, after counting the click; null when there is no such link. */
export async function recordClick(
  db: Db,
  deliveryId: number,
  link: number,
): Promise<string | null> {
  const delivery = await deliveryOf(db, deliveryId);
  if (!delivery) return null;
  const url = (JSON.parse(delivery.links) as string[])[link];
  if (!url) return null;
  const now = new Date().toISOString();
  if (delivery.track_clicks === 1) {
    await addCampaignEvent(db, {
      tenantId: delivery.tenant_id,
      campaignId: delivery.campaign_id,
      deliveryId: delivery.id,
      kind: "click",
      url,
      at: now,
    });
    if (delivery.track_opens === 1) {
      await addImpliedOpen(db, {
        tenantId: delivery.tenant_id,
        campaignId: delivery.campaign_id,
        deliveryId: delivery.id,
        at: now,
      });
    }
  }
  return url;
}

/** How long after a campaign mail an unsubscribe is counted against that campaign. */
export const UNSUBSCRIBE_ATTRIBUTION_MS = 30 * 86_400_000;

/**
 * Counts an unsubscribe against the last campaign mailed to the subscriber in the previous 30 days
 * (whichever way they left: the one-click header, the page, or the preference centre), in the
 * caller's transaction.
 */
export async function recordUnsubscribe(
  root: Db,
  tenantId: string,
  subscriberId: number,
  now: string,
): Promise<void> {
  const db = tenantDb(root, tenantId);
  const since = new Date(Date.parse(now) - UNSUBSCRIBE_ATTRIBUTION_MS).toISOString();
  const last = await db
    .selectFrom("deliveries")
    .select(["id", "campaign_id"])
    .where("subscriber_id", "=", subscriberId)
    .where("status", "=", "sent")
    .where("sent_at", ">=", since)
    .orderBy("sent_at", "desc")
    .limit(1)
    .executeTakeFirst();
  if (!last) return;
  await addCampaignEvent(db, {
    tenantId,
    campaignId: last.campaign_id,
    deliveryId: last.id,
    kind: "unsubscribe",
    at: now,
  });
}
