import { CAMPAIGN_MARKERS, renderCampaignEmail } from "../emails/campaign";
import { fillPage, type PageParts, splitPage } from "../http/page-cache";
import type { OutgoingMessage } from "../mail/transport";
import {
  listUnsubscribeHeaders,
  type SubscriptionContext,
  subscriberLinks,
  tenantLink,
} from "../subscribers/subscribers";
import { clickMarker, markLinks, signTrackingToken } from "./tracking-links";

/** What a campaign's message is made of; the same for every recipient until personalised. */
export interface CampaignMessageSource {
  id: string;
  newsletterId: string | null;
  subject: string;
  fromName: string;
  fromEmail: string;
  content: string;
  trackOpens: boolean;
  trackClicks: boolean;
  /** the campaign's links, in the order their click markers number them */
  links: string[];
}

export interface PreparedCampaignMessage {
  source: CampaignMessageSource;
  html: PageParts;
  text: PageParts;
}

export interface Recipient {
  deliveryId: number;
  subscriberId: number;
  email: string;
}

const MARKERS = (links: readonly string[]) => [
  ...Object.values(CAMPAIGN_MARKERS),
  ...links.map((_, index) => clickMarker(index)),
];

/**
 * Renders a campaign's email once (React Email is far too slow to run per recipient at 1,000
 * messages a second) and splits it around the per-recipient markers.
 */
export async function prepareCampaignMessage(
  ctx: SubscriptionContext,
  source: CampaignMessageSource,
): Promise<PreparedCampaignMessage> {
  const contentHtml = source.trackClicks ? markLinks(source.content, source.links) : source.content;
  const { html, text } = await renderCampaignEmail(ctx.tenant, {
    subject: source.subject,
    contentHtml,
    viewInBrowserUrl: source.newsletterId
      ? tenantLink(ctx, `/newsletter/${source.newsletterId}`)
      : null,
    trackOpens: source.trackOpens,
  });
  const markers = MARKERS(source.trackClicks ? source.links : []);
  return { source, html: splitPage(html, markers), text: splitPage(text, markers) };
}

/** One recipient's message: their preference and unsubscribe links, open pixel and click links. */
export function personalise(
  ctx: SubscriptionContext,
  prepared: PreparedCampaignMessage,
  recipient: Recipient,
): OutgoingMessage & { messageId: string } {
  const { source } = prepared;
  const subscriber = { id: recipient.subscriberId, email: recipient.email };
  const links = subscriberLinks(ctx, subscriber);
  const values = new Map<string, string>([
    [CAMPAIGN_MARKERS.preferences, links.preferencesUrl],
    [CAMPAIGN_MARKERS.unsubscribe, links.unsubscribeUrl],
    [
      CAMPAIGN_MARKERS.openPixel,
      tenantLink(
        ctx,
        `/t/o/${signTrackingToken(ctx.sessionSecret, "open", recipient.deliveryId)}.gif`,
      ),
    ],
  ]);
  if (source.trackClicks) {
    source.links.forEach((_, index) => {
      values.set(
        clickMarker(index),
        tenantLink(
          ctx,
          `/t/c/${signTrackingToken(ctx.sessionSecret, "click", recipient.deliveryId, index)}`,
        ),
      );
    });
  }
  // In HTML attributes & must be escaped; tenantLink's URLs may carry ?subdomain=…&…
  const htmlValues = new Map(
    [...values].map(([key, value]) => [key, value.replaceAll("&", "&amp;")]),
  );
  return {
    from: { name: source.fromName, email: source.fromEmail },
    to: recipient.email,
    subject: source.subject,
    html: fillPage(prepared.html, htmlValues).toString("utf8"),
    text: fillPage(prepared.text, values).toString("utf8"),
    headers: listUnsubscribeHeaders(ctx, subscriber),
    // The same delivery always has the same Message-ID: a message repeated after a crash shows it.
    messageId: `<d${recipient.deliveryId}.${source.id}@herald>`,
  };
}
