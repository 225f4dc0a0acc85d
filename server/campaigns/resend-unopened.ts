import type { CampaignRow } from "../db/schema";
import type { SubscriptionContext } from "../subscribers/subscribers";
import { audienceOf, getCampaignRow } from "./campaign-row";
import { createUnopenedDraft } from "./campaigns";
import { CampaignError } from "./errors";
import { countRecipients } from "./recipients";

/*
 * "Send to those who did not open" (issue 35, target 4): a new campaign, a draft that goes through
 * the normal review, whose audience is the original's delivered recipients with no open and no
 * click (recipient-activity.ts), read when it starts: someone who opened, left the lists,
 * unsubscribed, bounced or complained by then is not mailed. Its delivery rows are unique per
 * subscriber like any campaign's, so the engine reaches each of them once, across a crash.
 */

export const RESEND_MESSAGES = {
  notFinished: "Only a campaign that has finished sending can go to those who did not open it.",
  opensNotTracked: "Opens were not tracked for this campaign, so who did not open it is unknown.",
} as const;

/** The draft for those who did not open `campaignId`: made once, found again on a second press. */
export async function resendToUnopened(
  ctx: Pick<SubscriptionContext, "db" | "tenant">,
  campaignId: string,
  createdBy: string | null,
): Promise<CampaignRow> {
  const original = await getCampaignRow(ctx.db, ctx.tenant.id, campaignId);
  if (original.status !== "sent") throw new CampaignError(RESEND_MESSAGES.notFinished, 409);
  if (original.track_opens !== 1) throw new CampaignError(RESEND_MESSAGES.opensNotTracked, 409);
  return createUnopenedDraft(ctx.db, original, createdBy);
}

/** What the review shows of such a draft's audience: who is left of it now, and whose it is. */
export async function unopenedReview<
  Review extends { lists: string[]; audience: string; recipients: number },
>(
  ctx: Pick<SubscriptionContext, "db" | "tenant">,
  campaign: CampaignRow,
  review: Review,
): Promise<Review> {
  if (!campaign.unopened_of) return review;
  const original = await getCampaignRow(ctx.db, ctx.tenant.id, campaign.unopened_of);
  return {
    ...review,
    lists: [...review.lists, `only those who did not open “${original.name}”`],
    audience: `${review.audience}|unopened:${original.id}`,
    recipients: await countRecipients(ctx.db, ctx.tenant.id, await audienceOf(ctx.db, campaign)),
  };
}

/** The draft (or campaign, once sent) made for those who did not open `campaignId`, if any. */
export async function unopenedResendOf(
  ctx: Pick<SubscriptionContext, "db">,
  campaignId: string,
): Promise<{ id: string; status: CampaignRow["status"] } | null> {
  const row = await ctx.db
    .selectFrom("campaigns")
    .select(["id", "status"])
    .where("unopened_of", "=", campaignId)
    .executeTakeFirst();
  return row ?? null;
}
