import { Img } from "@react-email/img";
import { Section } from "@react-email/section";
import { formatDate } from "../../shared/format";
import type { TenantConfig } from "../tenants/config";
import { type EmailCover, EmailLayout } from "./layout";
import { brandOf, renderBoth } from "./templates";

/** Filled per recipient by the sender (server/campaigns/message.ts). */
export const CAMPAIGN_MARKERS = {
  preferences: "%%HERALD_PREFERENCES%%",
  unsubscribe: "%%HERALD_UNSUBSCRIBE%%",
  openPixel: "%%HERALD_OPEN%%",
} as const;

export interface CampaignEmailInput {
  /** the tenant's public origin: every URL in the mail is absolute on it */
  origin: string;
  /** the newsletter's title, else the subject */
  headline: string;
  /** the newsletter's author, date and read time as its page shows them (newsletterByline) */
  byline?: string | null;
  /** the newsletter's cover, absolute on the origin, its alt text the cover's description */
  cover?: EmailCover | null;
  /** the preview line inboxes show: the newsletter's excerpt */
  preheader: string;
  /** content made ready for mail (mailContentFor), links replaced by click markers when tracked */
  contentHtml: string;
  /** /newsletter/{id} on the tenant's site, when the campaign is a published newsletter */
  viewInBrowserUrl: string | null;
  /** "You receive this because …" */
  why: string;
  trackOpens: boolean;
}

/** The mail's width: a cover is shown at most this wide. */
export const EMAIL_WIDTH = 600;

/**
 * "By Ann Lee · November 22, 2026 · 4 min read": the page's line under the title
 * (app/components/newsletter-article.tsx), dated in the tenant's time zone.
 */
export function newsletterByline(input: {
  author: string | null;
  date: string;
  readTime: number;
  timeZone: string;
}): string {
  return [
    input.author ? `By ${input.author}` : null,
    formatDate(input.date, input.timeZone),
    `${input.readTime} min read`,
  ]
    .filter(Boolean)
    .join(" · ");
}

/** A cover as the mail shows it: its stored size scaled to the mail's width. */
export function emailCover(
  src: string,
  alt: string,
  size: { width: number; height: number } | undefined,
): EmailCover {
  if (!size || size.width <= 0) return { src, alt, width: EMAIL_WIDTH };
  const width = Math.min(size.width, EMAIL_WIDTH);
  return { src, alt, width, height: Math.round((size.height * width) / size.width) };
}

/**
 * A campaign in the tenant's email frame (SPEC §5: the cleaned content wrapped in an email-safe
 * page; issue 12: headline, preheader, 'view in browser', the content, the footer with why the
 * reader gets it and the preference and unsubscribe links, and the open pixel). Rendered once per
 * campaign; the markers are filled per recipient.
 */
export async function renderCampaignEmail(tenant: TenantConfig, input: CampaignEmailInput) {
  const brand = brandOf(tenant, input.origin);
  const element = (
    <EmailLayout
      brand={brand}
      preview={input.preheader}
      headline={input.headline}
      byline={input.byline}
      cover={input.cover}
      viewInBrowserUrl={input.viewInBrowserUrl}
      why={input.why}
      links={{
        preferencesUrl: CAMPAIGN_MARKERS.preferences,
        unsubscribeUrl: CAMPAIGN_MARKERS.unsubscribe,
      }}
    >
      <Section>
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: sanitised by cleanCampaignContent and mailContentFor */}
        <div dangerouslySetInnerHTML={{ __html: input.contentHtml }} />
      </Section>
      {input.trackOpens ? (
        <Img
          src={CAMPAIGN_MARKERS.openPixel}
          alt=""
          width={1}
          height={1}
          style={{ display: "block", border: 0 }}
        />
      ) : null}
    </EmailLayout>
  );
  return renderBoth(element);
}
