import {
  Body,
  Container,
  Head,
  Hr,
  Html,
  Img,
  Link,
  Preview,
  Section,
  Text,
} from "@react-email/components";
import type { ReactNode } from "react";

export interface EmailBrand {
  companyName: string;
  companyAddress: string;
  logoUrl: string;
  primaryColor: string;
  textColor: string;
  fontFamily: string;
}

export interface EmailFooterLinks {
  preferencesUrl?: string;
  unsubscribeUrl?: string;
}

/** The frame of every Herald email: the tenant's logo, colours and postal address (SPEC §3). */
export function EmailLayout({
  brand,
  preview,
  links,
  children,
}: {
  brand: EmailBrand;
  preview: string;
  links?: EmailFooterLinks;
  children: ReactNode;
}) {
  return (
    <Html lang="en">
      <Head />
      <Preview>{preview}</Preview>
      <Body
        style={{
          backgroundColor: "#f4f4f5",
          margin: 0,
          padding: "24px 0",
          fontFamily: brand.fontFamily,
        }}
      >
        <Container
          style={{ backgroundColor: "#ffffff", maxWidth: 600, borderRadius: 8, overflow: "hidden" }}
        >
          <Section style={{ backgroundColor: brand.primaryColor, padding: "20px 32px" }}>
            {brand.logoUrl ? (
              <Img src={brand.logoUrl} alt={brand.companyName} height={36} />
            ) : (
              <Text style={{ color: "#ffffff", fontSize: 20, fontWeight: 700, margin: 0 }}>
                {brand.companyName}
              </Text>
            )}
          </Section>
          <Section
            style={{
              padding: "24px 32px",
              color: brand.textColor,
              fontSize: 16,
              lineHeight: "24px",
            }}
          >
            {children}
          </Section>
          <Hr style={{ borderColor: "#e4e4e7", margin: 0 }} />
          <Section
            style={{ padding: "16px 32px", color: "#52525b", fontSize: 13, lineHeight: "20px" }}
          >
            <Text style={{ margin: 0 }}>
              {brand.companyName}
              {brand.companyAddress ? ` · ${brand.companyAddress}` : ""}
            </Text>
            {links?.preferencesUrl || links?.unsubscribeUrl ? (
              <Text style={{ margin: "8px 0 0" }}>
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
