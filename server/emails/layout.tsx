import { Body } from "@react-email/body";
import { Column } from "@react-email/column";
import { Container } from "@react-email/container";
import { Head } from "@react-email/head";
import { Heading } from "@react-email/heading";
import { Hr } from "@react-email/hr";
import { Html } from "@react-email/html";
import { Img } from "@react-email/img";
import { Link } from "@react-email/link";
import { Preview } from "@react-email/preview";
import { Row } from "@react-email/row";
import { Section } from "@react-email/section";
import { Text } from "@react-email/text";
import type { ReactNode } from "react";

export interface EmailBrand {
  companyName: string;
  companyAddress: string;
  logoUrl: string;
  primaryColor: string;
  textColor: string;
  fontFamily: string;
}

/** A picture shown the mail's full width (a newsletter's cover): absolute URL, at most 600 px. */
export interface EmailCover {
  src: string;
  alt: string;
  width: number;
  height?: number;
}

export interface EmailFooterLinks {
  preferencesUrl?: string;
  unsubscribeUrl?: string;
}

/**
 * The frame of every Herald email (SPEC §3, issue 12): the tenant's logo and name, an optional
 * headline, the content, and a footer with the postal address (required for commercial mail in
 * the US and the EU), why the reader gets it, and the preference and unsubscribe links. Light
 * only, with every colour set, so dark mode cannot leave dark text on a dark background.
 */
export function EmailLayout({
  brand,
  preview,
  headline,
  byline,
  cover,
  viewInBrowserUrl,
  why,
  links,
  children,
}: {
  brand: EmailBrand;
  /** the preheader: the line inboxes show after the subject */
  preview: string;
  headline?: string;
  /** under the headline, as the page shows it: "By Ann · November 22, 2026 · 4 min read" */
  byline?: string | null;
  /** the full-width picture between the headline and the content */
  cover?: EmailCover | null;
  viewInBrowserUrl?: string | null;
  /** "You receive this because …" */
  why?: string;
  links?: EmailFooterLinks;
  children: ReactNode;
}) {
  const contentCell = {
    backgroundColor: "#ffffff",
    padding: "24px 32px",
    color: brand.textColor,
    fontSize: 16,
    lineHeight: "26px",
    // Content inherits these; a long URL typed as text wraps instead of widening the mail.
    overflowWrap: "anywhere",
    wordBreak: "break-word",
  } as const;
  const footerText = { color: "#52525b", fontSize: 13, lineHeight: "20px", margin: 0 };
  return (
    <Html lang="en">
      <Head>
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light" />
        <meta name="supported-color-schemes" content="light" />
        <style>{":root{color-scheme:light only;supported-color-schemes:light only}"}</style>
      </Head>
      {preview ? <Preview>{preview}</Preview> : null}
      <Body
        style={{
          backgroundColor: "#f4f4f5",
          color: brand.textColor,
          margin: 0,
          padding: "24px 0",
          fontFamily: brand.fontFamily,
        }}
      >
        <Container
          style={{
            backgroundColor: "#ffffff",
            width: "100%",
            maxWidth: 600,
            borderRadius: 8,
            overflow: "hidden",
          }}
        >
          <Section style={{ backgroundColor: brand.primaryColor, padding: "16px 32px" }}>
            <Row>
              {brand.logoUrl ? (
                <Column style={{ width: 52, verticalAlign: "middle" }}>
                  <Img
                    src={brand.logoUrl}
                    alt={brand.companyName}
                    // The name is beside it: the text part says it once.
                    data-text="skip"
                    width={40}
                    height={40}
                    style={{ display: "block", borderRadius: 6, backgroundColor: "#ffffff" }}
                  />
                </Column>
              ) : null}
              <Column style={{ verticalAlign: "middle" }}>
                <Text
                  style={{
                    color: "#ffffff",
                    fontSize: 20,
                    lineHeight: "28px",
                    fontWeight: 700,
                    margin: 0,
                  }}
                >
                  {brand.companyName}
                </Text>
              </Column>
            </Row>
          </Section>
          <Section style={cover ? { ...contentCell, paddingBottom: 0 } : contentCell}>
            {viewInBrowserUrl ? (
              <Text style={{ margin: "0 0 16px", fontSize: 13, textAlign: "right" }}>
                <Link href={viewInBrowserUrl} style={{ color: brand.primaryColor }}>
                  View in browser
                </Link>
              </Text>
            ) : null}
            {headline ? (
              <Heading
                as="h1"
                style={{
                  color: brand.textColor,
                  fontSize: 30,
                  lineHeight: "36px",
                  fontWeight: 700,
                  margin: byline ? "0 0 8px" : "0 0 20px",
                }}
              >
                {headline}
              </Heading>
            ) : null}
            {byline ? (
              <Text
                style={{ color: "#52525b", fontSize: 14, lineHeight: "20px", margin: "0 0 20px" }}
              >
                {byline}
              </Text>
            ) : null}
            {cover ? null : children}
          </Section>
          {cover ? (
            <>
              <Img
                src={cover.src}
                alt={cover.alt}
                width={cover.width}
                height={cover.height}
                // The width attribute for Outlook; phones shrink it to the screen.
                style={{
                  display: "block",
                  width: "100%",
                  maxWidth: cover.width,
                  height: "auto",
                  border: 0,
                }}
              />
              <Section style={contentCell}>{children}</Section>
            </>
          ) : null}
          <Hr style={{ borderColor: "#e4e4e7", margin: 0 }} />
          <Section style={{ backgroundColor: "#ffffff", padding: "16px 32px" }}>
            {why ? <Text style={{ ...footerText, margin: "0 0 8px" }}>{why}</Text> : null}
            {links?.preferencesUrl || links?.unsubscribeUrl ? (
              <Text style={{ ...footerText, margin: "0 0 8px" }}>
                {links.preferencesUrl ? (
                  <Link
                    href={links.preferencesUrl}
                    style={{ color: "#52525b", textDecoration: "underline" }}
                  >
                    Manage your preferences
                  </Link>
                ) : null}
                {links.preferencesUrl && links.unsubscribeUrl ? " · " : null}
                {links.unsubscribeUrl ? (
                  <Link
                    href={links.unsubscribeUrl}
                    style={{ color: "#52525b", textDecoration: "underline" }}
                  >
                    Unsubscribe
                  </Link>
                ) : null}
              </Text>
            ) : null}
            <Text style={footerText}>
              {brand.companyName}
              {brand.companyAddress ? ` · ${brand.companyAddress}` : ""}
            </Text>
          </Section>
        </Container>
      </Body>
    </Html>
  );
}

/** A tenant's template body: plain text, one paragraph per blank-line-separated block. */
export function BodyText({ text }: { text: string }) {
  return (
    <>
      {text
        .split(/\n\s*\n/)
        .map((paragraph) => paragraph.trim())
        .filter(Boolean)
        .map((paragraph) => (
          <Text key={paragraph} style={{ margin: "0 0 16px", whiteSpace: "pre-line" }}>
            {paragraph}
          </Text>
        ))}
    </>
  );
}

export function ActionButton({
  href,
  color,
  children,
}: {
  href: string;
  color: string;
  children: ReactNode;
}) {
  return (
    <Section style={{ margin: "8px 0 24px" }}>
      <Link
        href={href}
        style={{
          backgroundColor: color,
          color: "#ffffff",
          padding: "12px 20px",
          borderRadius: 6,
          fontWeight: 700,
          textDecoration: "none",
          display: "inline-block",
        }}
      >
        {children}
      </Link>
    </Section>
  );
}
