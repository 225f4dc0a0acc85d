import { Img, Link, Section, Text } from "@react-email/components";
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
  subject: string;
  /** cleaned content, links already replaced by click markers when clicks are tracked */
  contentHtml: string;
  /** /newsletter/{id} on the tenant's site, when the campaign is a published newsletter */
  viewInBrowserUrl: string | null;
  trackOpens: boolean;
}

/**
 * A campaign in the tenant's email frame (SPEC §5: the cleaned content wrapped in an email-safe
 * page): 'view in browser', the content, the footer with preference and unsubscribe links, and the
 * open pixel. Rendered once per campaign; the markers are filled per recipient.
 */
export async function renderCampaignEmail(tenant: TenantConfig, input: CampaignEmailInput) {
  const brand = brandOf(tenant);
  const element = (
    <EmailLayout
      brand={brand}
      preview={input.subject}
      links={{
        preferencesUrl: CAMPAIGN_MARKERS.preferences,
        unsubscribeUrl: CAMPAIGN_MARKERS.unsubscribe,
      }}
    >
      {input.viewInBrowserUrl ? (
        <Text style={{ margin: "0 0 16px", fontSize: 13, textAlign: "right" }}>
          <Link href={input.viewInBrowserUrl} style={{ color: brand.primaryColor }}>
            View in browser
          </Link>
        </Text>
      ) : null}
      <Section>
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: sanitised by cleanCampaignContent */}
        <div dangerouslySetInnerHTML={{ __html: input.contentHtml }} />
      </Section>
      {input.trackOpens ? (
        <Img src={CAMPAIGN_MARKERS.openPixel} alt="" width={1} height={1} />
      ) : null}
    </EmailLayout>
  );
  return renderBoth(element);
}
