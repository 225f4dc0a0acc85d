import type { Db } from "../db";
import type { CampaignRow } from "../db/schema";
import { limitRefusal } from "../tenants/usage";
import { audienceOf } from "./campaign-row";
import { CampaignError } from "./errors";
import { countRecipients } from "./recipients";

/*
 * The tenant's campaign emails a month (decision 057): a campaign is counted whole, with all its
 * recipients, when it is reviewed, scheduled or sent, and refused then if it would pass the limit;
 * once it is sending it is never cut off.
 */

/** Refuses (CampaignError 429, naming the limit) `recipients` more emails past this month's limit. */
export async function refuseOverMonthlyMails(
  db: Db,
  tenantId: string,
  recipients: number,
): Promise<void> {
  const refusal = await limitRefusal(db, tenantId, "campaignMailsPerMonth", recipients);
  if (refusal) throw new CampaignError(refusal, 429);
}

/**
 * The same for a campaign (saved or about to be) by its audience as it stands now, when `counts`
 * (it is being scheduled or sent, not saved as a draft).
 */
export async function refuseCampaignOverMonthlyMails(
  db: Db,
  campaign: Pick<CampaignRow, "tenant_id" | "list_ids" | "segment_ids"> & {
    unopened_of?: string | null;
  },
  counts = true,
): Promise<void> {
  if (!counts) return;
  const recipients = await countRecipients(
    db,
    campaign.tenant_id,
    await audienceOf(db, { ...campaign, unopened_of: campaign.unopened_of ?? null }),
  );
  await refuseOverMonthlyMails(db, campaign.tenant_id, recipients);
}
