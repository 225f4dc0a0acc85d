import { z } from "zod";
import { CAMPAIGN_STATUSES } from "../../shared/schemas/campaign";
import { emailField, isValidEmail } from "../../shared/schemas/email";
import { cleanCampaignContent } from "../campaigns/clean-content";
import { CAMPAIGN_MESSAGES } from "../campaigns/errors";
import { CAMPAIGN_MARKERS, renderCampaignEmail } from "../emails/campaign";
import { mailContentFor, plainPreviewOf, siteNameOf } from "../emails/templates";
import { MailNotSentError, sendMail } from "../mail/send";
import { tenantLink } from "../subscribers/links";
import { FIXED_SENDER, type TenantConfig } from "../tenants/config";
import { foreignSenderProblem } from "../tenants/sender-domains";
import { ApiError } from "./errors";
import {
  contentField,
  defineFunction,
  FUNCTION_MESSAGES,
  groupsField,
  subjectField,
} from "./function-definition";

/* SPEC §7's functions that send: one email in the tenant's branding, a campaign, the campaigns. */

/** Sender of an ad-hoc email: "Name <address>", an address, or { name, email }. */
function parseSender(
  from: string | { name?: string | null; email: string } | null | undefined,
  tenant: TenantConfig,
): { name: string; email: string } {
  const fallbackName = tenant.email.senderName || FIXED_SENDER.name;
  if (!from) {
    return { name: fallbackName, email: tenant.email.senderEmail || FIXED_SENDER.email };
  }
  let name: string | null | undefined;
  let email: string;
  if (typeof from === "string") {
    const match = /^(.*)<([^<>]+)>\s*$/.exec(from);
    name = match?.[1]?.trim().replace(/^"(.*)"$/, "$1");
    email = (match?.[2] ?? from).trim();
  } else {
    name = from.name?.trim();
    email = from.email.trim();
  }
  if (!isValidEmail(email)) throw new ApiError("INVALID_ARGUMENT", CAMPAIGN_MESSAGES.badSender);
  return { name: (name || fallbackName).slice(0, 200), email };
}

export const sendEmail = defineFunction({
  summary: "Send one email in the tenant's branding",
  anonymous: false,
  input: z.object({
    to: emailField(),
    subject: subjectField,
    content: contentField,
    from: z
      .union([
        z.string().trim().max(320),
        z.object({
          name: z.string().trim().max(200).nullish(),
          email: z.string().trim().max(254),
        }),
      ])
      .nullish(),
  }),
  async handler(ctx, data) {
    const { tenant, db, transport, logger } = ctx.subscription;
    const subject = data.subject ?? "";
    // Staff's HTML gets the campaign clean-up: sanitised, never raw script.
    const content = cleanCampaignContent(data.content ?? "");
    if (!subject || !content) throw new ApiError("INVALID_ARGUMENT", CAMPAIGN_MESSAGES.required);
    const from = parseSender(data.from, tenant);
    const foreign = await foreignSenderProblem(db, tenant, from.email);
    if (foreign) throw new ApiError("INVALID_ARGUMENT", foreign, { from: [foreign] });
    // The campaign frame, without tracking; the footer gets SPEC §2's fixed links for the address.
    const { origin } = ctx.subscription;
    const mailContent = mailContentFor(tenant, content, origin);
    const rendered = await renderCampaignEmail(tenant, {
      origin,
      headline: subject,
      preheader: plainPreviewOf(mailContent),
      contentHtml: mailContent,
      viewInBrowserUrl: null,
      why: `You receive this because ${tenant.branding.companyName} sent it to your address from ${siteNameOf(origin)}.`,
      trackOpens: false,
    });
    const query = `?email=${encodeURIComponent(data.to)}`;
    const links: [string, string][] = [
      [CAMPAIGN_MARKERS.preferences, tenantLink(ctx.subscription, `/preferences${query}`)],
      [CAMPAIGN_MARKERS.unsubscribe, tenantLink(ctx.subscription, `/unsubscribe${query}`)],
    ];
    let { html, text } = rendered;
    for (const [marker, url] of links) {
      html = html.replaceAll(marker, url.replaceAll("&", "&amp;"));
      text = text.replaceAll(marker, url);
    }
    try {
      const sent = await sendMail(
        { db, transport, logger },
        {
          from,
          to: data.to,
          subject,
          html,
          text,
          headers: {},
          tenantId: tenant.id,
          kind: "email",
        },
        // The caller is told it failed; a later retry would send what they may send again.
        { retryLater: false },
      );
      return { success: true, messageId: sent.messageId };
    } catch (error) {
      if (error instanceof MailNotSentError) {
        throw new ApiError("UNAVAILABLE", FUNCTION_MESSAGES.sendFailed);
      }
      throw error;
    }
  },
});

export const createAndSendCampaign = defineFunction({
  summary: "Create a campaign and send or schedule it",
  anonymous: false,
  input: z.object({
    subject: subjectField,
    content: contentField,
    senderName: z.string().trim().max(200, "Sender name must be at most 200 characters").nullish(),
    senderEmail: z.string().trim().max(254, CAMPAIGN_MESSAGES.badSender).nullish(),
    groups: groupsField,
    trackOpens: z.boolean().nullish(),
    trackClicks: z.boolean().nullish(),
  }),
  async handler(ctx, data) {
    const { campaign } = await ctx.sendAsCampaign({
      subject: data.subject ?? "",
      content: data.content ?? "",
      senderName: data.senderName,
      senderEmail: data.senderEmail,
      groups: data.groups,
      trackOpens: data.trackOpens,
      trackClicks: data.trackClicks,
      mode: "now",
    });
    return { success: true, campaign };
  },
});

export const getCampaigns = defineFunction({
  summary: "The tenant's campaigns (limit 25, page 1, status filter)",
  anonymous: false,
  input: z.object({
    limit: z.number().int().min(1).max(100).nullish(),
    page: z.number().int().min(1).max(1_000_000).nullish(),
    status: z.enum(CAMPAIGN_STATUSES).nullish(),
  }),
  async handler(ctx, data) {
    const limit = data.limit ?? 25;
    const page = data.page ?? 1;
    const { items, total } = await ctx.provider().listCampaigns({
      limit,
      page,
      status: data.status,
    });
    return { success: true, campaigns: items, total, limit, page };
  },
});
