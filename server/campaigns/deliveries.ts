import { type SqlBool, sql } from "kysely";
import type { SegmentRule } from "../../shared/schemas/segment";
import type { Db } from "../db";
import type { CampaignEventKind } from "../db/schema";
import { crossTenant } from "../db/tenant-guard";
import { segmentCondition } from "../subscribers/segments";

/**
 * With delivery-claims.ts (the sender's claims and results), the one writer of `deliveries` (one
 * row per recipient of a campaign: the send queue) and of `campaign_events` (opens, clicks,
 * unsubscribes, bounces, complaints) — issue 13, point 3. This module queues and cancels
 * deliveries (a campaign's audience, welcome sequences), marks feedback, counts events and erases
 * addresses. Starting and cancelling a campaign, the sender's claims and results, tracking and bounce
 * handling all write through these functions. Pass a transaction as `db` to join one.
 */

/** Who a campaign goes to: the active subscribers on any of its lists or in any of its segments. */
export interface Audience {
  listIds: readonly number[];
  segments: readonly SegmentRule[];
  /** the tenant's number fields, which segments compare as numbers */
  numberFields: ReadonlySet<string>;
}

/**
 * A campaign's recipients: the tenant's active subscribers on any of the audience's lists or in
 * any of its segments. Unsubscribed, bounced, complained and erased addresses are not active, so
 * they are never among them, whatever a segment says.
 */
function recipientsOf(db: Db, tenantId: string, audience: Audience) {
  const { listIds, segments, numberFields } = audience;
  return db
    .selectFrom("subscribers")
    .where("subscribers.tenant_id", "=", tenantId)
    .where("subscribers.status", "=", "active")
    .where((eb) =>
      eb.or([
        ...(listIds.length > 0
          ? [
              eb.exists(
                eb
                  .selectFrom("subscriptions")
                  .select(sql`1`.as("one"))
                  .where("subscriptions.tenant_id", "=", tenantId)
                  .whereRef("subscriptions.subscriber_id", "=", "subscribers.id")
                  .where("subscriptions.list_id", "in", listIds),
              ),
            ]
          : []),
        ...segments.map((rule) => segmentCondition(eb, tenantId, rule, numberFields)),
        // an empty audience reaches nobody
        sql<SqlBool>`1 = 0`,
      ]),
    );
}

/** How many would receive a campaign to `audience` now (the review step's "Send to N"). */
export async function countRecipients(
  db: Db,
  tenantId: string,
  audience: Audience,
): Promise<number> {
  const { total } = await recipientsOf(db, tenantId, audience)
    .select((eb) => eb.fn.countAll<number>().as("total"))
    .executeTakeFirstOrThrow();
  return Number(total);
}

/** The columns a queued delivery is written with (the rest keep their defaults). */
const QUEUED_COLUMNS = [
  "tenant_id",
  "campaign_id",
  "subscriber_id",
  "email",
  "status",
  "attempts",
  "next_attempt_at",
] as const;

/** Queues one pending delivery per recipient of the audience; answers the total. */
export async function queueDeliveries(
  db: Db,
  campaign: { tenantId: string; id: string; audience: Audience },
  now: string,
): Promise<number> {
  const { tenantId, id, audience } = campaign;
  if (audience.listIds.length > 0 || audience.segments.length > 0) {
    await db
      .insertInto("deliveries")
      .columns(QUEUED_COLUMNS)
      .expression(
        recipientsOf(db, tenantId, audience)
          .select((eb) => [
            "subscribers.tenant_id",
            eb.val(id).as("campaign_id"),
            "subscribers.id",
            "subscribers.email",
            eb.val("pending").as("status"),
            eb.val(0).as("attempts"),
            eb.val(now).as("next_attempt_at"),
          ])
          .orderBy("subscribers.id"),
      )
      .onConflict((oc) => oc.columns(["campaign_id", "subscriber_id"]).doNothing())
      .execute();
  }
  const { total } = await db
    .selectFrom("deliveries")
    .select((eb) => eb.fn.countAll<number>().as("total"))
    .where("tenant_id", "=", tenantId)
    .where("campaign_id", "=", id)
    .executeTakeFirstOrThrow();
  return Number(total);
}

/** What is still waiting is never sent: a cancelled campaign's, or a suppressed subscriber's. */
export async function cancelPendingDeliveries(
  db: Db,
  tenantId: string,
  of: { campaignId: string } | { subscriberId: number; reason: string },
): Promise<void> {
  let query = db
    .updateTable("deliveries")
    .set({ status: "cancelled", ...("reason" in of ? { error: of.reason } : {}) })
    .where("tenant_id", "=", tenantId)
    .where("status", "=", "pending");
  query =
    "campaignId" in of
      ? query.where("campaign_id", "=", of.campaignId)
      : query.where("subscriber_id", "=", of.subscriberId);
  await query.execute();
}

/** Marks a delivery bounced or complained about, once; false when it already was. */
export async function markDeliveryFeedback(
  db: Db,
  tenantId: string,
  deliveryId: number,
  feedback: { column: "bounced_at" | "complained_at"; at: string; detail: string },
): Promise<boolean> {
  const marked = await db
    .updateTable("deliveries")
    .set({ [feedback.column]: feedback.at, feedback: feedback.detail.slice(0, 1000) })
    .where("tenant_id", "=", tenantId)
    .where("id", "=", deliveryId)
    .where(feedback.column, "is", null)
    .executeTakeFirst();
  return Number(marked.numUpdatedRows) > 0;
}

export interface CampaignEvent {
  tenantId: string;
  campaignId: string;
  deliveryId: number;
  kind: CampaignEventKind;
  url?: string | null;
  at: string;
  /** made by a machine, not a person (server/campaigns/machine-opens.ts) */
  machine?: boolean;
}

/** Counts an open, click, unsubscribe, bounce or complaint in its campaign's report. */
export async function addCampaignEvent(db: Db, event: CampaignEvent): Promise<void> {
  await db
    .insertInto("campaign_events")
    .values({
      tenant_id: event.tenantId,
      campaign_id: event.campaignId,
      delivery_id: event.deliveryId,
      kind: event.kind,
      url: event.url ?? null,
      created_at: event.at,
      machine: event.machine ? 1 : 0,
    })
    .execute();
}

/**
 * An erased subscriber's deliveries (GDPR Art. 17): the address and the bounce report (which quotes
 * it) go; the rows and their events stay, so the campaign's counts hold.
 */
export async function anonymiseDeliveries(
  db: Db,
  tenantId: string,
  subscriberIds: readonly number[],
): Promise<void> {
  for (let start = 0; start < subscriberIds.length; start += 500) {
    await db
      .updateTable("deliveries")
      .set({ email: "", feedback: null, error: null })
      .where("tenant_id", "=", tenantId)
      .where("subscriber_id", "in", subscriberIds.slice(start, start + 500))
      .execute();
  }
}

/**
 * Welcome sequences (issue 16, point 6): queues each running step for the active subscribers of
 * its list who joined after the step began and whose delay has passed, once each — the unique
 * (campaign, subscriber) key holds that even with several workers at once. Someone who left the
 * list, or stopped being active, is not queued for the steps still ahead. Answers how many rows.
 */
export async function enrolSequenceSteps(db: Db, now: Date): Promise<number> {
  const steps = await crossTenant(db)
    .selectFrom("campaigns")
    .select(["tenant_id", "id", "sequence_list_id", "sequence_delay_days", "started_at"])
    .where("status", "=", "sending")
    .where("sequence_list_id", "is not", null)
    .execute();
  const stamp = now.toISOString();
  let queued = 0;
  for (const step of steps) {
    const joinedBy = new Date(
      now.getTime() - (step.sequence_delay_days ?? 0) * 86_400_000,
    ).toISOString();
    const result = await db
      .insertInto("deliveries")
      .columns(QUEUED_COLUMNS)
      .expression(
        db
          .selectFrom("subscriptions")
          .innerJoin("subscribers", "subscribers.id", "subscriptions.subscriber_id")
          .select((eb) => [
            "subscribers.tenant_id",
            eb.val(step.id).as("campaign_id"),
            "subscribers.id",
            "subscribers.email",
            eb.val("pending").as("status"),
            eb.val(0).as("attempts"),
            eb.val(stamp).as("next_attempt_at"),
          ])
          .where("subscriptions.tenant_id", "=", step.tenant_id)
          .where("subscribers.tenant_id", "=", step.tenant_id)
          .where("subscriptions.list_id", "=", step.sequence_list_id ?? -1)
          .where("subscribers.status", "=", "active")
          .where("subscriptions.created_at", ">=", step.started_at ?? stamp)
          .where("subscriptions.created_at", "<=", joinedBy)
          .where((eb) =>
            eb.not(
              eb.exists(
                eb
                  .selectFrom("deliveries")
                  .select(sql`1`.as("one"))
                  .where("deliveries.tenant_id", "=", step.tenant_id)
                  .where("deliveries.campaign_id", "=", step.id)
                  .whereRef("deliveries.subscriber_id", "=", "subscribers.id"),
              ),
            ),
          )
          .orderBy("subscribers.id"),
      )
      .onConflict((oc) => oc.columns(["campaign_id", "subscriber_id"]).doNothing())
      .executeTakeFirst();
    queued += Number(result.numInsertedOrUpdatedRows ?? 0);
  }
  return queued;
}
