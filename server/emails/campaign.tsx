import { Img } from "@react-email/img";
import { Section } from "@react-email/section";
import type { TenantConfig } from "../tenants/config";
import { EmailLayout } from "./layout";
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
