import { displayNameOf } from "../auth/users";
import { tenantDb } from "../db/tenant-guard";
import {
  CAMPAIGN_MARKERS,
  emailCover,
  newsletterByline,
  renderCampaignEmail,
} from "../emails/campaign";
import { mailContentFor, plainPreviewOf, whyYouGetThis } from "../emails/templates";
import { absoluteUrl } from "../emails/urls";
import { findImagesByUrl, imageSources } from "../files/stored-images";
import { type PageParts, splitPage } from "../http/page-cache";
import { listIdHeader, messageIdFor, replyToHeader } from "../mail/headers";
import type { OutgoingMessage } from "../mail/transport";
import { withEmailSource } from "../newsletters/view-sources";
import { listUnsubscribeHeaders, subscriberLinks, tenantLink } from "../subscribers/links";
import { listTenantLists } from "../subscribers/lists";
import type { SubscriptionContext } from "../subscribers/subscribers";
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
  /** the lists it goes to: named in the footer, the first in List-Id */
  listIds: number[];
  /** the campaign's Reply-To; null: the tenant's */
  replyTo: string | null;
}

/**
 * A rendered message split around its per-recipient markers, as strings: a message goes to the
 * transport as a string, so its pieces are joined as strings (filling UTF-8 buffers, then decoding
 * the whole message again, cost the sender an encoding and a decoding of both parts per message).
 */
export interface MessageParts {
  /** the text around the markers: one more than markers */
  text: string[];
  markers: string[];
}

export interface PreparedCampaignMessage {
  source: CampaignMessageSource;
  html: MessageParts;
  text: MessageParts;
  /** headers the same for every recipient */
  headers: Record<string, string>;
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
  const [newsletter, tenantLists] = await Promise.all([
    source.newsletterId
      ? tenantDb(ctx.db, ctx.tenant.id)
          .selectFrom("newsletters")
          .select([
            "title",
            "excerpt",
            "slug",
            "author_id",
            "author_name",
            "published_at",
            "created_at",
            "read_time",
            "cover_image",
            "cover_alt",
          ])
          .where("id", "=", source.newsletterId)
          .executeTakeFirst()
      : undefined,
    listTenantLists(ctx.db, ctx.tenant),
  ]);
  const lists = tenantLists.filter((list) => source.listIds.includes(list.id));
  const coverUrl = newsletter?.cover_image ? absoluteUrl(newsletter.cover_image, ctx.origin) : null;
  const [images, author] = await Promise.all([
    findImagesByUrl(ctx.db, ctx.tenant.id, [
      ...imageSources(source.content).flatMap((src) => absoluteUrl(src, ctx.origin) ?? []),
      ...(coverUrl ? [coverUrl] : []),
    ]),
    // A staff member's byline; an imported post's own author when none applies (as the page).
    newsletter?.author_id
      ? displayNameOf(ctx.db, newsletter.author_id).then((name) => name ?? newsletter.author_name)
      : (newsletter?.author_name ?? null),
  ]);
  const mailContent = mailContentFor(ctx.tenant, source.content, ctx.origin, images);
  const contentHtml = source.trackClicks ? markLinks(mailContent, source.links) : mailContent;
  const { html, text } = await renderCampaignEmail(ctx.tenant, {
    origin: ctx.origin,
    headline: newsletter?.title || source.subject,
    byline: newsletter
      ? newsletterByline({
          author,
          date: newsletter.published_at ?? newsletter.created_at,
          readTime: Number(newsletter.read_time),
          timeZone: ctx.tenant.timeZone,
        })
      : null,
    cover: coverUrl
      ? emailCover(coverUrl, newsletter?.cover_alt ?? "", images.get(coverUrl))
      : null,
    // From the mail's own content: a web-only section never reaches the inbox's preview line.
    preheader: newsletter?.excerpt || plainPreviewOf(mailContent),
    contentHtml,
    // Tagged as mail, so the page counts the view under Email (decision 047).
    viewInBrowserUrl: source.newsletterId
      ? withEmailSource(tenantLink(ctx, `/newsletter/${newsletter?.slug ?? source.newsletterId}`))
      : null,
    why: whyYouGetThis(
      lists.map((list) => list.name),
      ctx.origin,
    ),
    trackOpens: source.trackOpens,
  });
  const markers = MARKERS(source.trackClicks ? source.links : []);
  const headers: Record<string, string> = replyToHeader(source.replyTo || ctx.tenant.email.replyTo);
  if (lists[0]) headers["List-Id"] = listIdHeader(lists[0], ctx.tenant.id, ctx.origin);
  return {
    source,
    html: asStrings(splitPage(html, markers)),
    text: asStrings(splitPage(text, markers)),
    headers,
  };
}

const asStrings = (parts: PageParts): MessageParts => ({
  text: parts.text.map((piece) => piece.toString("utf8")),
  markers: parts.markers,
});

/** The message with each marker's value for this recipient in its place. */
function fill(parts: MessageParts, values: ReadonlyMap<string, string>): string {
  let message = parts.text[0] ?? "";
  parts.markers.forEach((marker, index) => {
    message += (values.get(marker) ?? marker) + (parts.text[index + 1] ?? "");
  });
  return message;
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
    html: fill(prepared.html, htmlValues),
    text: fill(prepared.text, values),
    headers: { ...prepared.headers, ...listUnsubscribeHeaders(ctx, subscriber, links) },
    // The same delivery always has the same Message-ID: a message repeated after a crash shows it.
    messageId: messageIdFor(source.fromEmail, `d${recipient.deliveryId}.${source.id}`),
  };
}
