import type { CampaignRow } from "../db/schema";
import { getEnv } from "../env";
import { tenantLink } from "../subscribers/links";
import { campaignAudience } from "../subscribers/segments";
import type { SubscriptionContext } from "../subscribers/subscribers";
import { senderDomainWarnings } from "../tenants/sender-warnings";
import { type AbTest, abTestOf, armSizes } from "./ab-test";
import { type CampaignInput, validateCampaign } from "./compose";
import { refuseOverMonthlyMails } from "./mail-limit";
import { personalise, prepareCampaignMessage } from "./message";
import { countRecipients } from "./recipients";
import { unopenedReview } from "./resend-unopened";

/* Before a campaign goes out: the real email previewed and the review of its audience (tests: test-sends.ts). */

/** What the compose form shows before anything is saved: the real email, without tracking. */
export async function previewCampaign(
  ctx: SubscriptionContext,
  input: CampaignInput,
): Promise<{ subject: string; from: string; html: string; text: string }> {
  const valid = await validateCampaign(ctx, input);
  const prepared = await prepareCampaignMessage(ctx, {
    id: "preview",
    newsletterId: input.newsletterId ?? null,
    subject: valid.subject,
    fromName: valid.fromName,
    fromEmail: valid.fromEmail,
    content: valid.content,
    trackOpens: false,
    trackClicks: false,
    links: [],
    listIds: valid.lists.map((list) => list.id),
    replyTo: valid.replyTo,
  });
  // Sample links: the pages themselves, without a subscriber's token.
  const message = personalise(ctx, prepared, {
    deliveryId: 0,
    subscriberId: 0,
    email: "reader@example.com",
  });
  return {
    subject: message.subject,
    from: `${valid.fromName} <${valid.fromEmail}>`,
    html: message.html.replaceAll(
      /href="[^"]*\/preferences\/[^"]*"/g,
      `href="${tenantLink(ctx, "/subscription/preferences")}"`,
    ),
    text: message.text,
  };
}

/** The review before sending (issue 16, point 7): the real email, its audience and how many get it. */
export async function reviewCampaign(
  ctx: SubscriptionContext,
  input: CampaignInput,
): Promise<{
  subject: string;
  from: string;
  replyTo: string | null;
  html: string;
  lists: string[];
  /** the lists' ids, in order: what a confirmation must name to send to this audience */
  audience: string;
  recipients: number;
  /** the mail would go out unsigned or unaligned (server/tenants/sender-warnings.ts) */
  senderWarnings: string[];
  /** an A/B test's split of these recipients: each subject's test arm, then the rest */
  abSplit: AbSplit | null;
}> {
  const valid = await validateCampaign(ctx, input);
  const [preview, recipients, senderWarnings] = await Promise.all([
    previewCampaign(ctx, input),
    countRecipients(
      ctx.db,
      ctx.tenant.id,
      await campaignAudience(ctx.db, ctx.tenant.id, {
        listIds: valid.lists.map((list) => list.id),
        segmentIds: valid.segments.map((segment) => segment.id),
      }),
    ),
    // A MailerLite tenant's campaigns are sent (and signed) by MailerLite: Herald's key does not apply.
    (ctx.tenant.mailProvider || getEnv().MAIL_PROVIDER) === "mailerlite"
      ? []
      : senderDomainWarnings(ctx.db, ctx.tenant.id, valid.fromEmail),
  ]);
  // Refused at review, not cut off mid-send, when it would pass the month's mails (decision 057).
  await refuseOverMonthlyMails(ctx.db, ctx.tenant.id, recipients);
  const ids = (items: { id: number }[]) =>
    items
      .map((item) => item.id)
      .sort((a, b) => a - b)
      .join(",");
  return {
    subject: preview.subject,
    from: preview.from,
    replyTo: valid.replyTo || ctx.tenant.email.replyTo || null,
    html: preview.html,
    lists: [
      ...valid.lists.map((list) => list.name),
      ...valid.segments.map((segment) => `${segment.name} (segment)`),
    ],
    audience: valid.segments.length
      ? `${ids(valid.lists)}|${ids(valid.segments)}`
      : ids(valid.lists),
    recipients,
    senderWarnings,
    abSplit: valid.abTest ? abSplitOf(valid.abTest, recipients) : null,
  };
}

export interface AbSplit {
  arms: { subject: string; recipients: number }[];
  rest: number;
  winnerBy: AbTest["winnerBy"];
  waitMinutes: number;
}

function abSplitOf(test: AbTest, recipients: number): AbSplit {
  const sizes = armSizes(recipients, test);
  const tested = sizes.reduce((sum, size) => sum + size, 0);
  return {
    arms: test.subjects.map((subject, index) => ({ subject, recipients: sizes[index] ?? 0 })),
    rest: recipients - tested,
    winnerBy: test.winnerBy,
    waitMinutes: test.waitMinutes,
  };
}

/**
 * The review of a saved campaign (issue 32, finding 16): a draft's or scheduled campaign's "Send
 * now" shows the compose form's review, read from the campaign as saved, and sends only with the
 * audience and count that review showed.
 */
export async function reviewSavedCampaign(ctx: SubscriptionContext, campaign: CampaignRow) {
  const review = await reviewCampaign(ctx, {
    newsletterId: campaign.newsletter_id,
    subject: campaign.subject,
    content: campaign.content,
    senderName: campaign.from_name,
    senderEmail: campaign.from_email,
    replyTo: campaign.reply_to,
    groups: JSON.parse(campaign.list_ids) as number[],
    segments: JSON.parse(campaign.segment_ids) as number[],
    trackOpens: campaign.track_opens === 1,
    trackClicks: campaign.track_clicks === 1,
    abTest: abTestOf(campaign),
  });
  return unopenedReview(ctx, campaign, review);
}
