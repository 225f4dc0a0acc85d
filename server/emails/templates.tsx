import { Text } from "@react-email/components";
import { render } from "@react-email/render";
import { readableOn } from "../tenants/branding";
import type { EmailTemplate, TenantConfig } from "../tenants/config";
import { FIXED_SENDER } from "../tenants/config";
import {
  ActionButton,
  BodyText,
  type EmailBrand,
  type EmailFooterLinks,
  EmailLayout,
} from "./layout";

export type TemplateKey = keyof TenantConfig["emailTemplates"];

export interface RenderedEmail {
  subject: string;
  from: { name: string; email: string };
  html: string;
  text: string;
}

export function brandOf(tenant: TenantConfig): EmailBrand {
  return {
    companyName: tenant.branding.companyName,
    companyAddress: tenant.branding.companyAddress,
    logoUrl: tenant.branding.logoUrl,
    // Mail clients ignore CSS variables: the accessible shade is computed here.
    primaryColor: readableOn(tenant.branding.primaryColor, "#ffffff"),
    textColor: tenant.branding.textColor,
    fontFamily: tenant.branding.fontFamily,
  };
}

/** SPEC §7 sender: the template's own from, then the tenant's email settings, then the fixed default. */
export function senderFor(
  tenant: TenantConfig,
  template: EmailTemplate,
): { name: string; email: string } {
  return {
    name: template.fromName || template.senderName || tenant.email.senderName || FIXED_SENDER.name,
    email: template.fromEmail || tenant.email.senderEmail || FIXED_SENDER.email,
  };
}

export async function renderBoth(element: React.ReactElement) {
  const [html, text] = await Promise.all([render(element), render(element, { plainText: true })]);
  return { html, text };
}

export type EmailContent =
  | { kind: "welcome"; listNames: string[]; links: EmailFooterLinks }
  | { kind: "confirm-signup"; confirmUrl: string; listNames: string[] }
  | { kind: "verification"; verifyUrl: string; joining: string[]; leaving: string[] }
  | { kind: "confirmation"; listNames: string[]; links: EmailFooterLinks }
  | { kind: "bounce"; email: string; links: EmailFooterLinks };

const TEMPLATE_FOR: Record<EmailContent["kind"], TemplateKey> = {
  welcome: "welcomeEmail",
  "confirm-signup": "verificationEmail",
  verification: "verificationEmail",
  confirmation: "confirmationEmail",
  bounce: "bounceNotificationEmail",
};

function ListSummary({ title, names }: { title: string; names: string[] }) {
  if (names.length === 0) return null;
  return (
    <Text style={{ margin: "0 0 16px" }}>
      <strong>{title}</strong>
      {names.map((name) => `\n• ${name}`).join("")}
    </Text>
  );
}

/** Renders one of the tenant's emails (React Email), with an HTML and a text part. */
export async function renderEmail(
  tenant: TenantConfig,
  content: EmailContent,
): Promise<RenderedEmail> {
  const template = tenant.emailTemplates[TEMPLATE_FOR[content.kind]];
  const brand = brandOf(tenant);
  let subject = template.subject;
  let element: React.ReactElement;
  switch (content.kind) {
    case "welcome":
      element = (
        <EmailLayout brand={brand} preview={subject} links={content.links}>
          <BodyText text={template.body} />
          <ListSummary title="You are subscribed to:" names={content.listNames} />
        </EmailLayout>
      );
      break;
    case "confirm-signup":
      subject = `Please confirm your subscription to ${tenant.branding.companyName}`;
      element = (
        <EmailLayout brand={brand} preview={subject}>
          <Text style={{ margin: "0 0 16px" }}>
            Someone — hopefully you — asked to receive {tenant.branding.companyName}'s newsletters
            at this address. Please confirm to start receiving them.
          </Text>
          <ListSummary title="Lists:" names={content.listNames} />
          <ActionButton href={content.confirmUrl} color={brand.primaryColor}>
            Confirm my subscription
          </ActionButton>
          <Text style={{ margin: 0, fontSize: 13 }}>
            If you did not ask for this, ignore this email and nothing will happen.
          </Text>
        </EmailLayout>
      );
      break;
    case "verification":
      element = (
        <EmailLayout brand={brand} preview={subject}>
          <BodyText text={template.body} />
          <ListSummary title="You will be subscribed to:" names={content.joining} />
          <ListSummary title="You will leave:" names={content.leaving} />
          <ActionButton href={content.verifyUrl} color={brand.primaryColor}>
            Confirm my changes
          </ActionButton>
          <Text style={{ margin: 0, fontSize: 13 }}>
            This link works once and expires in 24 hours. If you did not ask for this, ignore this
            email.
          </Text>
        </EmailLayout>
      );
      break;
    case "confirmation":
      element = (
        <EmailLayout brand={brand} preview={subject} links={content.links}>
          <BodyText text={template.body} />
          {content.listNames.length > 0 ? (
            <ListSummary title="You are now subscribed to:" names={content.listNames} />
          ) : (
            <Text style={{ margin: "0 0 16px" }}>You are not subscribed to any list any more.</Text>
          )}
        </EmailLayout>
      );
      break;
    case "bounce":
      element = (
        <EmailLayout brand={brand} preview={subject} links={content.links}>
          <BodyText text={template.body} />
          <Text style={{ margin: "0 0 16px" }}>Address: {content.email}</Text>
        </EmailLayout>
      );
      break;
  }
  const { html, text } = await renderBoth(element);
  return { subject, from: senderFor(tenant, template), html, text };
}
