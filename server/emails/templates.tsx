import { render, toPlainText } from "@react-email/render";
import { Text } from "@react-email/text";
import { Fragment } from "react";
import { readableOn } from "../../shared/theme";
import type { EmailTemplate, TenantConfig } from "../tenants/config";
import { FIXED_SENDER } from "../tenants/config";
import { emailContentHtml } from "./content";
import {
  ActionButton,
  BodyText,
  type EmailBrand,
  type EmailFooterLinks,
  EmailLayout,
} from "./layout";
import { absoluteUrl } from "./urls";
import { DefaultWelcome, isDefaultWelcome, type WelcomeIssues } from "./welcome";

export type TemplateKey = keyof TenantConfig["emailTemplates"];

export interface RenderedEmail {
  subject: string;
  from: { name: string; email: string };
  html: string;
  text: string;
}

/** The tenant's branding as mail carries it; `origin` makes an uploaded logo's URL absolute. */
export function brandOf(tenant: TenantConfig, origin: string): EmailBrand {
  return {
    companyName: tenant.branding.companyName,
    companyAddress: tenant.branding.companyAddress,
    logoUrl: tenant.branding.logoUrl ? (absoluteUrl(tenant.branding.logoUrl, origin) ?? "") : "",
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

/** An image in the text part: "[Image: its alt]"; one without alt (a spacer, a pixel) says nothing. */
const imageAsAltText = (
  elem: { attribs?: Record<string, string> },
  _walk: unknown,
  builder: { addInline: (text: string) => void },
) => {
  const alt = (elem.attribs?.alt ?? "").replace(/\s+/g, " ").trim();
  if (alt) builder.addInline(`[Image: ${alt}]`);
};

/**
 * Plain text that reads well: headings on their own lines, list bullets, links as "text (url)",
 * images as their alt text.
 */
const PLAIN_TEXT_OPTIONS = {
  formatters: { imageAsAltText },
  selectors: [
    { selector: "img", format: "imageAsAltText" },
    { selector: "img[data-text=skip]", format: "skip" },
    { selector: "a", options: { linkBrackets: ["(", ")"], hideLinkHrefIfSameAsText: true } },
    // A card's picture links where its title already does (server/content/blocks.ts).
    { selector: "a[data-text=skip]", format: "skip" },
    // The headline too: a text part that shouts reads worse than the page.
    ...["h1", "h2", "h3", "h4"].map((selector) => ({
      selector,
      options: { uppercase: false, leadingLineBreaks: 2, trailingLineBreaks: 1 },
    })),
  ],
};

/** The HTML part, rendered once, and the text part made from it. */
export async function renderBoth(element: React.ReactElement) {
  const html = await render(element);
  // The editor wraps each list item's text in a paragraph: one line per item, not two.
  const compactLists = html.replace(
    /(<li\b[^>]*>)\s*<p\b[^>]*>([\s\S]*?)<\/p>\s*(?=<\/li>)/g,
    "$1$2",
  );
  return { html, text: toPlainText(compactLists, PLAIN_TEXT_OPTIONS) };
}

/** The first words of some HTML, for a preheader when there is no excerpt. */
export function plainPreviewOf(html: string, length = 150): string {
  const text = toPlainText(html, {
    selectors: [
      { selector: "a", options: { ignoreHref: true } },
      ...["h1", "h2", "h3", "h4"].map((selector) => ({ selector, options: { uppercase: false } })),
    ],
  })
    .replace(/\s+/g, " ")
    .trim();
  return text.length > length ? `${text.slice(0, length - 1).trimEnd()}…` : text;
}

/** "example.com": how the footer names the site a reader subscribed on. */
export function siteNameOf(origin: string): string {
  try {
    return new URL(origin).host;
  } catch {
    return origin;
  }
}

/** The footer's reason for a list mail. */
export function whyYouGetThis(listNames: readonly string[], origin: string): string {
  const lists =
    listNames.length > 1
      ? `${listNames.slice(0, -1).join(", ")} and ${listNames.at(-1)}`
      : (listNames[0] ?? "our newsletter");
  return `You receive this because you subscribed to ${lists} on ${siteNameOf(origin)}.`;
}

/**
 * A tenant's content for mail: absolute URLs, fitted images, inline typography. `images` gives
 * the size of uploaded images the content names without one (by absolute URL).
 */
export function mailContentFor(
  tenant: TenantConfig,
  html: string,
  origin: string,
  images?: ReadonlyMap<string, { width: number; height: number }>,
): string {
  const brand = brandOf(tenant, origin);
  return emailContentHtml(html, {
    origin,
    textColor: brand.textColor,
    linkColor: brand.primaryColor,
    imageSize: images ? (src) => images.get(src) : undefined,
  });
}

export type EmailContent =
  | {
      kind: "welcome";
      listNames: string[];
      links: EmailFooterLinks;
      /** what the default welcome says of the tenant's issues (undefined: not looked up) */
      issues?: WelcomeIssues;
    }
  | { kind: "confirm-signup"; confirmUrl: string; listNames: string[] }
  | { kind: "verification"; verifyUrl: string; joining: string[]; leaving: string[] }
  | { kind: "confirmation"; listNames: string[]; links: EmailFooterLinks }
  | { kind: "bounce"; email: string; links: EmailFooterLinks }
  | { kind: "unsubscribe-link"; url: string }
  | { kind: "preferences-link"; url: string }
  | { kind: "password-reset"; url: string }
  | { kind: "staff-invitation"; url: string; invitedBy: string };

const TEMPLATE_FOR: Record<EmailContent["kind"], TemplateKey> = {
  welcome: "welcomeEmail",
  "confirm-signup": "verificationEmail",
  verification: "verificationEmail",
  confirmation: "confirmationEmail",
  bounce: "bounceNotificationEmail",
  "unsubscribe-link": "verificationEmail",
  "preferences-link": "verificationEmail",
  "password-reset": "verificationEmail",
  "staff-invitation": "verificationEmail",
};

function ListSummary({ title, names }: { title: string; names: string[] }) {
  if (names.length === 0) return null;
  return (
    <Text style={{ margin: "0 0 16px" }}>
      <strong>{title}</strong>
      {/* Line breaks, not newlines in pre-line text: the text part keeps one name a line. */}
      {names.map((name) => (
        <Fragment key={name}>
          <br />• {name}
        </Fragment>
      ))}
    </Text>
  );
}

/** Renders one of the tenant's emails (React Email), with an HTML and a text part. */
export async function renderEmail(
  tenant: TenantConfig,
  content: EmailContent,
  origin: string,
): Promise<RenderedEmail> {
  const template = tenant.emailTemplates[TEMPLATE_FOR[content.kind]];
  const brand = brandOf(tenant, origin);
  let subject = template.subject;
  let element: React.ReactElement;
  switch (content.kind) {
    case "welcome":
      element = (
        <EmailLayout
          brand={brand}
          preview={subject}
          links={content.links}
          why={whyYouGetThis(content.listNames, origin)}
          headline={
            isDefaultWelcome(template) ? `Welcome to ${tenant.branding.companyName}` : undefined
          }
        >
          {isDefaultWelcome(template) ? (
            <DefaultWelcome tenant={tenant} brand={brand} issues={content.issues} />
          ) : (
            <BodyText text={template.body} />
          )}
          <ListSummary title="You are subscribed to:" names={content.listNames} />
          {isDefaultWelcome(template) ? (
            <Text style={{ margin: 0, fontSize: 14 }}>
              Choose what you receive or unsubscribe at any time with the links below.
            </Text>
          ) : null}
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
        <EmailLayout
          brand={brand}
          preview={subject}
          links={content.links}
          why={content.listNames.length > 0 ? whyYouGetThis(content.listNames, origin) : undefined}
        >
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
    case "unsubscribe-link":
    case "preferences-link": {
      const unsubscribing = content.kind === "unsubscribe-link";
      subject = unsubscribing
        ? `Confirm that you want to unsubscribe from ${tenant.branding.companyName}`
        : `Your ${tenant.branding.companyName} newsletter preferences`;
      element = (
        <EmailLayout brand={brand} preview={subject}>
          <Text style={{ margin: "0 0 16px" }}>
            {unsubscribing
              ? `Someone — hopefully you — asked to stop ${tenant.branding.companyName}'s newsletters to this address. Open the link to confirm.`
              : `Someone — hopefully you — asked for a link to choose which of ${tenant.branding.companyName}'s newsletters this address receives.`}
          </Text>
          <ActionButton href={content.url} color={brand.primaryColor}>
            {unsubscribing ? "Unsubscribe" : "Manage my preferences"}
          </ActionButton>
          <Text style={{ margin: 0, fontSize: 13 }}>
            This link works for 24 hours. If you did not ask for it, ignore this email and nothing
            will change.
          </Text>
        </EmailLayout>
      );
      break;
    }
    case "password-reset":
      subject = `Reset your ${tenant.branding.companyName} staff password`;
      element = (
        <EmailLayout brand={brand} preview={subject}>
          <Text style={{ margin: "0 0 16px" }}>
            Someone — hopefully you — asked to reset the password of the staff account for this
            address. Choose a new one with the link below; every session of the account is signed
            out when you do.
          </Text>
          <ActionButton href={content.url} color={brand.primaryColor}>
            Choose a new password
          </ActionButton>
          <Text style={{ margin: 0, fontSize: 13 }}>
            The link works once, for one hour. If you did not ask for it, ignore this email: your
            password stays as it is.
          </Text>
        </EmailLayout>
      );
      break;
    case "staff-invitation":
      subject = `You are invited to ${tenant.branding.companyName}'s newsletter admin`;
      element = (
        <EmailLayout brand={brand} preview={subject}>
          <Text style={{ margin: "0 0 16px" }}>
            {content.invitedBy} invited you to write and send {tenant.branding.companyName}'s
            newsletters. Choose your password to create your staff account.
          </Text>
          <ActionButton href={content.url} color={brand.primaryColor}>
            Accept the invitation
          </ActionButton>
          <Text style={{ margin: 0, fontSize: 13 }}>The link works once, for seven days.</Text>
        </EmailLayout>
      );
      break;
  }
  const { html, text } = await renderBoth(element);
  return { subject, from: senderFor(tenant, template), html, text };
}
