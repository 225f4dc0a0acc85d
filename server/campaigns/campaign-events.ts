import type { Db } from "../db";
import type { CampaignEventKind } from "../db/schema";

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
