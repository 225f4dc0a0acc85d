import { colord, extend } from "colord";
import namesPlugin from "colord/plugins/names";
import { isTimeZone } from "../time-zone";
import { z } from "../zod";
import { isValidEmail } from "./email";
import { storableText } from "./text";

/**
 * The tenant manager's rules (issue 6), shared by its form, the tenant REST API and the server:
 * one place says what a valid tenant is.
 */
export const TENANT_ID_PATTERN = "[a-z0-9](?:[a-z0-9\\-]{0,38}[a-z0-9])?";
const TENANT_ID = new RegExp(`^${TENANT_ID_PATTERN}$`);
/** A host name with at least one dot (brand.example.com), no scheme, port or path. */
const HOST_NAME =
  /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** SPEC §2's texts for the manager's Save, and the API's refusals. */
export const TENANT_MESSAGES = {
  saved: "Tenant configuration saved successfully!",
  saveFailed: "Failed to save tenant configuration. Please try again.",
  notFound: "Tenant not found",
  idTaken: "A tenant with this id already exists",
  domainTaken: "Another tenant already uses this domain",
  mainUndeletable: "The main tenant cannot be deleted",
  hasData:
    "This tenant has newsletters, subscribers or messages; delete with force=true to remove them too",
} as const;

export const TEMPLATE_KEYS = [
  "welcomeEmail",
  "confirmationEmail",
  "verificationEmail",
  "bounceNotificationEmail",
] as const;
export type TemplateKey = (typeof TEMPLATE_KEYS)[number];

export const TEMPLATE_LABELS: Record<TemplateKey, string> = {
  welcomeEmail: "Welcome email",
  confirmationEmail: "Confirmation email",
  verificationEmail: "Verification email",
  bounceNotificationEmail: "Bounce notification email",
};

export const COLOR_FIELDS = [
  "primaryColor",
  "secondaryColor",
  "accentColor",
  "textColor",
  "backgroundColor",
  "errorColor",
  "successColor",
] as const;

export const COLOR_LABELS: Record<(typeof COLOR_FIELDS)[number], string> = {
  primaryColor: "Primary colour",
  secondaryColor: "Secondary colour",
  accentColor: "Accent colour",
  textColor: "Text colour",
  backgroundColor: "Background colour",
  errorColor: "Error colour",
  successColor: "Success colour",
};

export const FEATURE_LABELS = {
  allowCustomSubscription: "Visitors choose their lists when subscribing",
  enableDarkMode: "Dark mode",
  showBranding: "Show “Powered by Herald”",
  doubleOptIn: "Double opt-in (new subscribers confirm by email)",
  showBusyBanner: "Show the “busy shipping new features” banner on the home page",
} as const;

// Named colours (rebeccapurple, navy…) are CSS colours too.
extend([namesPlugin]);

export function isCssColor(value: string): boolean {
  return colord(value).isValid();
}

/** "is required" when the field is missing altogether, "must be …" when it has the wrong type. */
const missingOr = (label: string, kind: string) => ({
  // Only the type check is reworded; other issues (unknown keys…) keep zod's own message.
  error: (issue: { code?: string; input?: unknown }) =>
    issue.code !== "invalid_type"
      ? undefined
      : issue.input === undefined
        ? `${label} is required`
        : `${label} must be ${kind}`,
});

const text = (label: string, max: number) =>
  storableText(missingOr(label, "text"))
    .trim()
    .max(max, `${label} must be at most ${max} characters`);

/** A blank required field gets one message, not also the format's. */
const required = (label: string, max: number) =>
  text(label, max).min(1, { error: `${label} is required`, abort: true });

const color = (label: string) =>
  required(label, 64).refine(
    isCssColor,
    `${label} must be a CSS colour such as #1b365d, rgb(27, 54, 93) or navy`,
  );

const optionalEmail = (label: string) =>
  text(label, 254).refine((value) => value === "" || isValidEmail(value), {
    error: (issue) => `${label}: Invalid email format: ${String(issue.input)}`,
  });

/** A web address, or a path on this site (an uploaded image); blank means none. */
const imageUrl = (label: string) =>
  text(label, 2000).refine(
    (value) =>
      value === "" ||
      /^https?:\/\/[^\s"'<>()\\]+$/i.test(value) ||
      /^\/(?!\/)[^\s"'<>()\\]*$/.test(value),
    `${label} must start with https:// (or be an uploaded image)`,
  );

export const tenantIdField = storableText({ error: "Tenant id is required" })
  .trim()
  .min(1, { error: "Tenant id is required", abort: true })
  .max(40, "Tenant id must be at most 40 characters")
  .regex(TENANT_ID, "Tenant id may only use lower-case letters, digits and hyphens");

export const domainField = storableText({ error: "Domain is required" })
  .trim()
  .toLowerCase()
  // "news.example.com." (the fully qualified form) is the same host
  .overwrite((value) => value.replace(/\.$/, ""))
  .min(1, { error: "Domain is required", abort: true })
  .max(253, "Domain must be at most 253 characters")
  .regex(HOST_NAME, "Domain must be a host name such as news.example.com (no https:// or path)");

export const brandingSchema = z.object(
  {
    primaryColor: color("Primary colour"),
    secondaryColor: color("Secondary colour"),
    accentColor: color("Accent colour"),
    textColor: color("Text colour"),
    backgroundColor: color("Background colour"),
    errorColor: color("Error colour"),
    successColor: color("Success colour"),
    borderRadius: required("Border radius", 20).regex(
      /^(?:0|\d{1,3}(?:\.\d{1,3})?(?:px|rem|em|%))$/,
      "Border radius must be a length such as 8px or 0.5rem",
    ),
    fontFamily: required("Font family", 200).regex(
      /^[\w\s,"'.-]+$/,
      "Font family may only list font names, separated by commas",
    ),
    logoUrl: imageUrl("Logo URL"),
    favicon: imageUrl("Favicon"),
    companyName: required("Company name", 100),
    companyAddress: text("Company address", 300),
  },
  missingOr("Branding", "an object"),
);

export const emailTemplateSchema = z.object(
  {
    subject: required("Subject", 200),
    senderName: text("Sender name", 100),
    fromName: text("From name", 100),
    fromEmail: optionalEmail("From email"),
    body: text("Body", 10_000),
  },
  missingOr("Each email template", "an object"),
);

export const emailTemplatesSchema = z.object(
  {
    welcomeEmail: emailTemplateSchema,
    confirmationEmail: emailTemplateSchema,
    verificationEmail: emailTemplateSchema,
    bounceNotificationEmail: emailTemplateSchema,
  },
  missingOr("Email templates", "an object"),
);

export const featuresSchema = z.object(
  {
    allowCustomSubscription: z.boolean({ error: "allowCustomSubscription must be true or false" }),
    enableDarkMode: z.boolean({ error: "enableDarkMode must be true or false" }),
    showBranding: z.boolean({ error: "showBranding must be true or false" }),
    doubleOptIn: z.boolean({ error: "doubleOptIn must be true or false" }),
    // Newer than the API's first clients: left out, the banner stays on (SPEC's default).
    showBusyBanner: z.boolean({ error: "showBusyBanner must be true or false" }).default(true),
  },
  missingOr("Features", "an object"),
);

export const emailSettingsSchema = z.object(
  {
    senderName: text("Sender name", 100),
    senderEmail: optionalEmail("Sender email"),
    // Optional for API clients written before it existed.
    replyTo: optionalEmail("Reply-to email").default(""),
  },
  missingOr("Email settings", "an object"),
);

const listKey = storableText()
  .trim()
  .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, "List keys use lower-case letters, digits and hyphens");

export const emailGroupsSchema = z
  .object(
    {
      default: listKey,
      groups: z.array(listKey).min(1, "At least one list is required").max(20),
    },
    missingOr("Email groups", "an object"),
  )
  .refine((value) => value.groups.includes(value.default), {
    message: "The default list must be one of the lists",
    path: ["default"],
  });

export const MAIL_PROVIDER_CHOICES = ["", "builtin", "mailerlite"] as const;

/** list key → MailerLite group id (digits, as MailerLite numbers its groups); blank = not mapped */
export const mailerLiteGroupsSchema = z.record(
  listKey,
  storableText()
    .trim()
    .regex(/^\d{0,30}$/, "MailerLite group ids are numbers, e.g. 112233445566778899"),
);

/** Everything staff edit about a tenant except its id and domain. */
export const tenantSettingsSchema = z.object({
  name: required("Name", 100),
  description: text("Description", 500),
  mailerLiteGroupId: text("Mail-list group id", 100).regex(
    /^\d*$/,
    "The mail-list group id is a MailerLite group number, e.g. 112233445566778899",
  ),
  branding: brandingSchema,
  emailTemplates: emailTemplatesSchema,
  features: featuresSchema,
  email: emailSettingsSchema,
  /** issue 32, finding 15: where the tenant's mail may come from, beside its DKIM keys' domains */
  senderDomains: z
    .array(domainField)
    .max(20, "At most 20 sender domains")
    .transform((domains) => [...new Set(domains)])
    .default([]),
  emailGroups: emailGroupsSchema,
  /** "" = the deployment's MAIL_PROVIDER */
  mailProvider: z
    .enum(MAIL_PROVIDER_CHOICES, { error: "Mail provider must be builtin, mailerlite or blank" })
    .default(""),
  mailerLiteGroups: mailerLiteGroupsSchema.default({}),
  timeZone: storableText()
    .trim()
    .refine(isTimeZone, "Choose a time zone from the list, e.g. Europe/London")
    .default("UTC"),
});

export type TenantSettings = z.infer<typeof tenantSettingsSchema>;

/** 'Add New Tenant': the rest starts from the defaults. */
export const newTenantSchema = z.object({
  id: tenantIdField,
  name: required("Name", 100),
  domain: domainField,
});

export type NewTenant = z.infer<typeof newTenantSchema>;

/**
 * The manager's form fields ("branding.primaryColor", "emailTemplates.welcomeEmail.subject",
 * checkboxes for features) as settings; what the form does not carry (the lists) comes from
 * `current`. The result still has to pass tenantSettingsSchema.
 */
export function settingsFromForm(form: FormData, current: TenantSettings): TenantSettings {
  const value = (name: string, fallback: string) => {
    const entry = form.get(name);
    return typeof entry === "string" ? entry : fallback;
  };
  const section = <T extends Record<string, unknown>>(prefix: string, values: T): T =>
    Object.fromEntries(
      Object.entries(values).map(([key, was]) => [
        key,
        typeof was === "boolean"
          ? form.get(`${prefix}.${key}`) === "on"
          : value(`${prefix}.${key}`, String(was)),
      ]),
    ) as T;
  return {
    name: value("name", current.name),
    description: value("description", current.description),
    mailerLiteGroupId: value("mailerLiteGroupId", current.mailerLiteGroupId),
    branding: section("branding", current.branding),
    emailTemplates: {
      welcomeEmail: section("emailTemplates.welcomeEmail", current.emailTemplates.welcomeEmail),
      confirmationEmail: section(
        "emailTemplates.confirmationEmail",
        current.emailTemplates.confirmationEmail,
      ),
      verificationEmail: section(
        "emailTemplates.verificationEmail",
        current.emailTemplates.verificationEmail,
      ),
      bounceNotificationEmail: section(
        "emailTemplates.bounceNotificationEmail",
        current.emailTemplates.bounceNotificationEmail,
      ),
    },
    features: section("features", current.features),
    email: section("email", current.email),
    // one text field: domains separated by commas, spaces or lines
    senderDomains: form.has("senderDomains")
      ? value("senderDomains", "")
          .split(/[\s,]+/)
          .filter(Boolean)
      : current.senderDomains,
    emailGroups: current.emailGroups,
    mailProvider: value("mailProvider", current.mailProvider) as TenantSettings["mailProvider"],
    mailerLiteGroups: Object.fromEntries(
      current.emailGroups.groups.map((key) => [
        key,
        value(`mailerLiteGroups.${key}`, current.mailerLiteGroups[key] ?? ""),
      ]),
    ),
    timeZone: value("timeZone", current.timeZone),
  };
}
