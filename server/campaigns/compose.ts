import { isValidEmail } from "../../shared/schemas/email";
import { mailContentFor } from "../emails/templates";
import {
  listTenantLists,
  type MailingList,
  resolveLists,
  sendableLists,
} from "../subscribers/lists";
import { listSegments, type Segment } from "../subscribers/segments";
import type { SubscriptionContext } from "../subscribers/subscribers";
import { FIXED_SENDER } from "../tenants/config";
import { foreignSenderProblem } from "../tenants/sender-domains";
import { type AbTest, checkAbTest } from "./ab-test";
import { cleanCampaignContent } from "./clean-content";
import { CAMPAIGN_MESSAGES, CampaignError } from "./errors";
import { extractLinks } from "./tracking-links";

/*
 * What staff compose: a campaign's input, checked with its defaults, and the columns of the row it
 * makes. Creating, editing, reviewing and testing a campaign all start here.
 */

export type SendMode = "now" | "schedule" | "draft";

/** SPEC §7 createAndSendCampaign, plus the newsletter it comes from and when to send. */
export interface CampaignInput {
  subject?: string | null;
  content?: string | null;
  senderName?: string | null;
  senderEmail?: string | null;
  /** Reply-To; blank: the tenant's, else none */
  replyTo?: string | null;
  /** list keys, numeric id strings or numbers; none (and no segments) = the tenant's default list */
  groups?: readonly (string | number)[] | null;
  /** segment ids (issue 16, point 4): with the lists, the audience */
  segments?: readonly number[] | null;
  trackOpens?: boolean | null;
  trackClicks?: boolean | null;
  newsletterId?: string | null;
  mode?: SendMode;
  /** ISO time, for mode "schedule" */
  scheduledAt?: string | null;
  /** A/B subject lines (ab-test.ts): the first is `subject` */
  abTest?: AbTest | null;
}

export interface ValidCampaign {
  subject: string;
  content: string;
  fromName: string;
  fromEmail: string;
  replyTo: string | null;
  lists: MailingList[];
  segments: Segment[];
  trackOpens: boolean;
  trackClicks: boolean;
  abTest: AbTest | null;
}

/** Validation and defaults of SPEC §5/§7: sender from the tenant, then the fixed default. */
export async function validateCampaign(
  ctx: SubscriptionContext,
  input: CampaignInput,
): Promise<ValidCampaign> {
  const subject = input.subject?.trim() ?? "";
  const content = cleanCampaignContent(input.content ?? "");
  if (!subject || !content) throw new CampaignError(CAMPAIGN_MESSAGES.required);
  if (subject.length > 300) throw new CampaignError("Subject must be at most 300 characters");
  const fromEmail = input.senderEmail?.trim() || ctx.tenant.email.senderEmail || FIXED_SENDER.email;
  if (!isValidEmail(fromEmail)) throw new CampaignError(CAMPAIGN_MESSAGES.badSender);
  const foreign = await foreignSenderProblem(ctx.db, ctx.tenant, fromEmail);
  if (foreign) throw new CampaignError(foreign);
  const fromName = (
    input.senderName?.trim() ||
    ctx.tenant.email.senderName ||
    FIXED_SENDER.name
  ).slice(0, 200);
  const replyTo = input.replyTo?.trim() || null;
  if (replyTo && !isValidEmail(replyTo)) throw new CampaignError("Invalid reply-to email format");
  const all = sendableLists(await listTenantLists(ctx.db, ctx.tenant));
  const segmentIds = [...new Set(input.segments ?? [])];
  const segments = segmentIds.length
    ? (await listSegments(ctx.db, ctx.tenant.id)).filter((segment) =>
        segmentIds.includes(segment.id),
      )
    : [];
  if (segments.length !== segmentIds.length)
    throw new CampaignError("Choose segments from the list");
  const requested = input.groups?.length
    ? input.groups
    : segments.length
      ? []
      : [ctx.tenant.emailGroups.default];
  const lists = resolveLists(all, requested);
  if (lists.length === 0 && (segments.length === 0 || requested.length > 0)) {
    throw new CampaignError(CAMPAIGN_MESSAGES.noGroups);
  }
  const abTest = checkAbTest(input.abTest);
  if (abTest) {
    if (abTest.subjects[0] !== subject)
      throw new CampaignError("The first A/B subject line is the campaign's subject");
    const tracked = abTest.winnerBy === "opens" ? input.trackOpens : input.trackClicks;
    if (tracked === false)
      throw new CampaignError(`Track ${abTest.winnerBy} to pick the winner by ${abTest.winnerBy}`);
  }
  return {
    abTest,
    subject,
    content,
    fromName,
    fromEmail,
    replyTo,
    lists,
    segments,
    trackOpens: input.trackOpens ?? true,
    trackClicks: input.trackClicks ?? true,
  };
}

/** What a campaign says and to whom, as its row stores it (creating and editing alike). */
export function campaignColumns(ctx: SubscriptionContext, valid: ValidCampaign) {
  return {
    name: valid.subject,
    subject: valid.subject,
    from_name: valid.fromName,
    from_email: valid.fromEmail,
    reply_to: valid.replyTo,
    content: valid.content,
    list_ids: JSON.stringify(valid.lists.map((list) => list.id)),
    segment_ids: JSON.stringify(valid.segments.map((segment) => segment.id)),
    track_opens: valid.trackOpens ? 1 : 0,
    track_clicks: valid.trackClicks ? 1 : 0,
    ab_test: valid.abTest ? JSON.stringify(valid.abTest) : null,
    // Links as the mail carries them (relative ones made absolute), so each can be tracked.
    links: JSON.stringify(extractLinks(mailContentFor(ctx.tenant, valid.content, ctx.origin))),
  };
}

/** A send time staff chose: a valid instant, not in the past (a minute's grace for the form). */
export function futureSendTime(iso: string | null | undefined, now: Date): string {
  const at = iso ? new Date(iso) : null;
  if (!at || Number.isNaN(at.getTime())) throw new CampaignError("Choose when to send it");
  if (at.getTime() < now.getTime() - 60_000)
    throw new CampaignError("The send time must be in the future");
  return at.toISOString();
}
