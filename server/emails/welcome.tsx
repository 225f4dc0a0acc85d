import { Text } from "@react-email/text";
import type { EmailTemplate, TenantConfig } from "../tenants/config";
import { DEFAULT_TENANT_CONFIG } from "../tenants/config";
import { ActionButton, type EmailBrand } from "./layout";

/** What the default welcome says of a tenant's issues: the newest to read, and how often they come. */
export interface WelcomeIssues {
  latest: { title: string; url: string } | null;
  /** "about once a week" (publishingCadence), null when the issues keep no rhythm yet */
  cadence: string | null;
}

/** A welcome template nobody wrote: blank, or the text every tenant starts with. */
export function isDefaultWelcome(template: EmailTemplate): boolean {
  const body = template.body.trim();
  return !body || body === DEFAULT_TENANT_CONFIG.emailTemplates.welcomeEmail.body;
}

const DAY_MS = 86_400_000;

/**
 * How often a tenant publishes, from its newest issues' dates: the middle gap between them, in
 * words. Three issues at least (two gaps); none when they are further apart than six weeks.
 */
export function publishingCadence(dates: readonly string[]): string | null {
  const times = dates
    .map((date) => Date.parse(date))
    .filter(Number.isFinite)
    .sort((a, b) => b - a);
  if (times.length < 3) return null;
  const gaps = times
    .slice(1)
    .map((time, index) => ((times[index] ?? time) - time) / DAY_MS)
    .sort((a, b) => a - b);
  const days = gaps[Math.floor(gaps.length / 2)] ?? 0;
  if (days < 1.5) return "about every day";
  if (days < 5) return "a few times a week";
  if (days < 10) return "about once a week";
  if (days < 20) return "about every two weeks";
  if (days < 45) return "about once a month";
  return null;
}

/**
 * The welcome mail a tenant has not written itself (issue 35): who it is from, what to expect (how
 * often, and the tenant's description when set), and the latest issue to read now.
 */
export function DefaultWelcome({
  tenant,
  brand,
  issues,
}: {
  tenant: TenantConfig;
  brand: EmailBrand;
  issues: WelcomeIssues | undefined;
}) {
  const name = tenant.branding.companyName;
  const description = tenant.description.trim();
  const latest = issues?.latest;
  return (
    <>
      <Text style={{ margin: "0 0 16px" }}>
        Thank you for subscribing to {name}'s newsletter. Each new issue comes to this address as
        soon as it is published{issues?.cadence ? `, ${issues.cadence}` : ""}.
      </Text>
      {description ? (
        <Text style={{ margin: "0 0 16px", whiteSpace: "pre-line" }}>
          <strong>What to expect:</strong> {description}
        </Text>
      ) : null}
      {latest ? (
        <>
          <Text style={{ margin: "0 0 8px" }}>
            While you wait for the next one, here is our latest issue:{" "}
            <strong>{latest.title}</strong>
          </Text>
          <ActionButton href={latest.url} color={brand.primaryColor}>
            Read the latest issue
          </ActionButton>
        </>
      ) : null}
    </>
  );
}
