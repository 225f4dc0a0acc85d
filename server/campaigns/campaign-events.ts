import { sql } from "kysely";
import type { Db } from "../db";
import type { CampaignEventKind } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";

/**
 * The one writer of `campaign_events`: the opens, clicks, unsubscribes, bounces and complaints a
 * campaign's report counts (tracking.ts, bounces.ts). Pass a transaction as `db` to join one.
 */

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
 * A click is an open (issue 35, target 4): a reader who clicked opened the mail, even when the
 * pixel was blocked. Counts one people's open for the clicked delivery at the click's time, unless
 * it already has one, in one statement (docs/decisions/040-per-reader-activity.md).
 */
export async function addImpliedOpen(
  root: Db,
  event: Pick<CampaignEvent, "tenantId" | "campaignId" | "deliveryId" | "at">,
): Promise<void> {
  const db = tenantDb(root, event.tenantId);
  await db
    .insertInto("campaign_events")
    .columns(["tenant_id", "campaign_id", "delivery_id", "kind", "url", "created_at", "machine"])
    .expression(
      db
        .selectFrom("deliveries")
        .select((eb) => [
          "deliveries.tenant_id",
          "deliveries.campaign_id",
          "deliveries.id",
          eb.val("open").as("kind"),
          eb.val(null).as("url"),
          eb.val(event.at).as("created_at"),
          eb.val(0).as("machine"),
        ])
        .where("deliveries.id", "=", event.deliveryId)
        .where("deliveries.campaign_id", "=", event.campaignId)
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom("campaign_events")
                .select(sql`1`.as("one"))
                .whereRef("campaign_events.delivery_id", "=", "deliveries.id")
                .where("campaign_events.kind", "=", "open")
                .where("campaign_events.machine", "=", 0),
            ),
          ),
        ),
    )
    .execute();
}
