import type { Db } from "../db";
import type { CampaignRow, CampaignStatus } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import { campaignAudience } from "../subscribers/segments";
import { CAMPAIGN_MESSAGES, CampaignError } from "./errors";
import type { CampaignMessageSource } from "./message";
import type { Audience } from "./recipients";

/* A saved campaign read back: the row, its status, its audience, what its message is made from. */

export async function getCampaignRow(root: Db, tenantId: string, id: string): Promise<CampaignRow> {
  if (!id) throw new CampaignError(CAMPAIGN_MESSAGES.idRequired);
  const row = await tenantDb(root, tenantId)
    .selectFrom("campaigns")
    .selectAll()
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row) throw new CampaignError(CAMPAIGN_MESSAGES.notFound, 404);
  return row;
}

/** Just the campaign's status (the sender asks before each message). */
export async function campaignStatusOf(
  root: Db,
  tenantId: string,
  id: string,
): Promise<CampaignStatus> {
  const row = await tenantDb(root, tenantId)
    .selectFrom("campaigns")
    .select("status")
    .where("id", "=", id)
    .executeTakeFirst();
  // A campaign deleted under the sender (its tenant removed) sends nothing more.
  return row?.status ?? "cancelled";
}

/** A campaign's audience: its lists, and its segments' rules as they are now. */
export async function audienceOf(
  db: Db,
  campaign: Pick<CampaignRow, "tenant_id" | "list_ids" | "segment_ids" | "unopened_of">,
): Promise<Audience> {
  const audience = await campaignAudience(db, campaign.tenant_id, {
    listIds: JSON.parse(campaign.list_ids) as number[],
    segmentIds: JSON.parse(campaign.segment_ids) as number[],
  });
  return { ...audience, unopenedOf: campaign.unopened_of };
}

export function messageSource(campaign: CampaignRow): CampaignMessageSource {
  return {
    id: campaign.id,
    newsletterId: campaign.newsletter_id,
    subject: campaign.subject,
    fromName: campaign.from_name,
    fromEmail: campaign.from_email,
    content: campaign.content,
    trackOpens: campaign.track_opens === 1,
    trackClicks: campaign.track_clicks === 1,
    links: JSON.parse(campaign.links) as string[],
    listIds: JSON.parse(campaign.list_ids) as number[],
    replyTo: campaign.reply_to ?? null,
  };
}

/**
 * How old a campaign's status may be when a sender hands a message to SMTP: senders re-read it at
 * most this often, not once per message (server/campaigns/worker.ts).
 */
export const CAMPAIGN_STATE_MS = 200;

/**
 * Pause and Cancel answer once every sender has seen them, so that after the answer only messages
 * already handed to SMTP go out (issue 14: they took effect only after the batch in hand).
 */
export const senderHeard = () => new Promise((resolve) => setTimeout(resolve, CAMPAIGN_STATE_MS));
