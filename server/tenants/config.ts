import { z } from "zod";
import { isSiteOrigin } from "../../shared/schemas/embed";

/**
 * A tenant's configuration (SPEC §3 Tenant). Stored overrides are merged over DEFAULT_TENANT_CONFIG,
 * so a tenant row only holds what differs from the defaults.
 */
export interface EmailTemplate {
  subject: string;
  senderName: string;
  fromName: string;
  fromEmail: string;
  body: string;
}

export interface TenantConfig {
  id: string;
  name: string;
  domain: string | null;
  description: string;
  mailerLiteGroupId: string | null;
  branding: {
    primaryColor: string;
    secondaryColor: string;
    accentColor: string;
    textColor: string;
    backgroundColor: string;
    errorColor: string;
    successColor: string;
    borderRadius: string;
    fontFamily: string;
    logoUrl: string;
    favicon: string;
    companyName: string;
    companyAddress: string;
  };
  emailTemplates: {
    welcomeEmail: EmailTemplate;
    confirmationEmail: EmailTemplate;
    verificationEmail: EmailTemplate;
    bounceNotificationEmail: EmailTemplate;
  };
  emailGroups: { default: string; groups: string[] };
  features: {
    allowCustomSubscription: boolean;
    enableDarkMode: boolean;
    showBranding: boolean;
    doubleOptIn: boolean;
    /** SPEC §2 Home's "busy shipping new features" banner; a tenant may turn it off (issue 35) */
    showBusyBanner: boolean;
  };
  /** replyTo: where replies to the tenant's mail go; blank: to the sender */
  email: { senderName: string; senderEmail: string; replyTo: string };
  /**
   * Domains a super admin lets this tenant send from, beside its DKIM keys' and its site's
   * (issue 32, finding 15; server/tenants/sender-domains.ts).
   */
  senderDomains: string[];
  /**
   * Who keeps this tenant's subscribers and sends its campaigns (issue 7): "" follows the
   * deployment's MAIL_PROVIDER; "builtin" or "mailerlite" overrides it.
   */
  mailProvider: "" | "builtin" | "mailerlite";
  /** list key → MailerLite group id, for lists other than the default (whose id is mailerLiteGroupId) */
  mailerLiteGroups: Record<string, string>;
  /** IANA time zone staff schedule and read times in (issue 15); times are stored in UTC */
  timeZone: string;
  /**
   * Origins of the other sites whose pages may carry this tenant's embedded sign-up form and frame
   * /embed/form (issue 35; server/subscribers/embed.ts). Set on /admin/embed, not in the manager.
   */
  embedOrigins: string[];
}

/** Sender of last resort (SPEC §7: "a fixed company name and newsletter address"). */
export const FIXED_SENDER = { name: "KeyDiscovery", email: "newsletter@keydiscovery.com" } as const;

/**
 * A template's sender is blank unless staff set one on purpose: blank means the tenant's sender
 * (email.senderName/senderEmail), so a tenant's mail comes from one name (issue 35).
 */
const template = (subject: string, body: string): EmailTemplate => ({
  subject,
  senderName: "",
  fromName: "",
  fromEmail: "",
  body,
});

export const DEFAULT_TENANT_CONFIG: Omit<TenantConfig, "id"> = {
  name: "KeyDiscovery",
  domain: null,
  description: "",
  mailerLiteGroupId: null,
  branding: {
    primaryColor: "#4a90e2",
    secondaryColor: "#f5a623",
    accentColor: "#50e3c2",
    textColor: "#1f2933",
    backgroundColor: "#ffffff",
    errorColor: "#c62828",
    successColor: "#2e7d32",
    borderRadius: "8px",
    fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
    logoUrl: "",
    favicon: "",
    companyName: "KeyDiscovery",
    companyAddress: "",
  },
  emailTemplates: {
    welcomeEmail: template(
      "Welcome to our newsletter",
      "Thank you for subscribing. You will hear from us soon.",
    ),
    confirmationEmail: template(
      "Your subscription preferences were updated",
      "Your changes have been applied.",
    ),
    verificationEmail: template(
      "Confirm your subscription changes",
      "Please confirm the changes to your subscription by following the link below.",
    ),
    bounceNotificationEmail: template(
      "We could not deliver our newsletter to you",
      "Messages to your address have been bouncing. Please check your address.",
    ),
  },
  emailGroups: {
    default: "newsletter",
    groups: ["newsletter", "product-updates", "industry-news"],
  },
  features: {
    allowCustomSubscription: true,
    enableDarkMode: false,
    showBranding: true,
    doubleOptIn: true,
    showBusyBanner: true,
  },
  email: { senderName: FIXED_SENDER.name, senderEmail: FIXED_SENDER.email, replyTo: "" },
  senderDomains: [],
  mailProvider: "",
  mailerLiteGroups: {},
  timeZone: "UTC",
  embedOrigins: [],
};

/** What may be stored as a tenant's overrides: every part optional, unknown keys dropped. */
const templateOverride = z
  .object({
    subject: z.string(),
    senderName: z.string(),
    fromName: z.string(),
    fromEmail: z.string(),
    body: z.string(),
  })
  .partial();

export const tenantOverridesSchema = z
  .object({
    branding: z
      .object({
        primaryColor: z.string(),
        secondaryColor: z.string(),
        accentColor: z.string(),
        textColor: z.string(),
        backgroundColor: z.string(),
        errorColor: z.string(),
        successColor: z.string(),
        borderRadius: z.string(),
        fontFamily: z.string(),
        logoUrl: z.string(),
        favicon: z.string(),
        companyName: z.string(),
        companyAddress: z.string(),
      })
      .partial(),
    emailTemplates: z
      .object({
        welcomeEmail: templateOverride,
        confirmationEmail: templateOverride,
        verificationEmail: templateOverride,
        bounceNotificationEmail: templateOverride,
      })
      .partial(),
    emailGroups: z.object({ default: z.string(), groups: z.array(z.string()) }).partial(),
    features: z
      .object({
        allowCustomSubscription: z.boolean(),
        enableDarkMode: z.boolean(),
        showBranding: z.boolean(),
        doubleOptIn: z.boolean(),
        showBusyBanner: z.boolean(),
      })
      .partial(),
    email: z
      .object({ senderName: z.string(), senderEmail: z.string(), replyTo: z.string() })
      .partial(),
    senderDomains: z.array(z.string()),
    mailProvider: z.enum(["", "builtin", "mailerlite"]),
    mailerLiteGroups: z.record(z.string(), z.string()),
    timeZone: z.string(),
    embedOrigins: z.array(z.string()),
  })
  .partial();

export type TenantOverrides = z.infer<typeof tenantOverridesSchema>;

export interface TenantRecord {
  id: string;
  name: string;
  domain: string | null;
  description: string;
  mailerLiteGroupId: string | null;
  overrides: TenantOverrides;
}

/**
 * Merges a tenant's stored overrides over the defaults, one section at a time. Empty strings in
 * an override count as "not set", so a blanked field falls back to the default instead of vanishing.
 */
export function mergeTenantConfig(record: TenantRecord): TenantConfig {
  const d = DEFAULT_TENANT_CONFIG;
  const o = record.overrides;
  const brandingOverrides = withoutBlanks(o.branding ?? {});
  const templates = {} as TenantConfig["emailTemplates"];
  for (const key of Object.keys(d.emailTemplates) as (keyof TenantConfig["emailTemplates"])[]) {
    templates[key] = { ...d.emailTemplates[key], ...withoutBlanks(o.emailTemplates?.[key] ?? {}) };
  }
  return {
    id: record.id,
    name: record.name || d.name,
    domain: record.domain,
    description: record.description,
    mailerLiteGroupId: record.mailerLiteGroupId,
    branding: {
      ...d.branding,
      companyName: record.name || d.branding.companyName,
      ...brandingOverrides,
    },
    emailTemplates: templates,
    emailGroups: { ...d.emailGroups, ...o.emailGroups },
    features: { ...d.features, ...o.features },
    email: { ...d.email, ...withoutBlanks(o.email ?? {}) },
    senderDomains: o.senderDomains ?? d.senderDomains,
    mailProvider: o.mailProvider ?? d.mailProvider,
    mailerLiteGroups: withoutBlanks(o.mailerLiteGroups ?? {}) as Record<string, string>,
    timeZone: o.timeZone || d.timeZone,
    // Sites saved before issue 44 (finding 5) may be `https://*` or worse: only proper origins
    // count, for the frame's header and for who may post alike.
    embedOrigins: (o.embedOrigins ?? d.embedOrigins).filter(isSiteOrigin),
  };
}

function withoutBlanks<T extends Record<string, unknown>>(values: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(values).filter(
      ([, value]) => !(typeof value === "string" && value.trim() === ""),
    ),
  ) as Partial<T>;
}
