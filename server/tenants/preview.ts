import type { TemplateKey } from "../../shared/schemas/tenant";
import { type RenderedEmail, renderEmail } from "../emails/templates";
import type { TenantConfig } from "./config";

/**
 * A template rendered as subscribers get it, with sample data in the tenant's branding: the
 * tenant manager's 'Preview'. Links point at the tenant's own pages but carry no token.
 */
export async function renderTemplatePreview(
  tenant: TenantConfig,
  key: TemplateKey,
  origin: string,
): Promise<RenderedEmail> {
  const links = {
    preferencesUrl: `${origin}/subscription/preferences?email=reader%40example.com`,
    unsubscribeUrl: `${origin}/subscription/unsubscribe?email=reader%40example.com`,
  };
  const lists = [`${tenant.name} Newsletter`, "Industry News"];
  switch (key) {
    case "welcomeEmail":
      return renderEmail(tenant, { kind: "welcome", listNames: lists, links }, origin);
    case "confirmationEmail":
      return renderEmail(tenant, { kind: "confirmation", listNames: lists, links }, origin);
    case "verificationEmail":
      return renderEmail(
        tenant,
        {
          kind: "verification",
          verifyUrl: `${origin}/subscription/preferences?email=reader%40example.com&token=sample`,
          joining: [lists[1] ?? "Industry News"],
          leaving: [`${tenant.name} Updates`],
        },
        origin,
      );
    case "bounceNotificationEmail":
      return renderEmail(tenant, { kind: "bounce", email: "reader@example.com", links }, origin);
  }
}
