import { describe, expect, it } from "vitest";
import { DEFAULT_TENANT_CONFIG, mergeTenantConfig, type TenantRecord } from "./config";

const record = (overrides: TenantRecord["overrides"] = {}): TenantRecord => ({
  id: "acme",
  name: "Acme Legal",
  domain: null,
  description: "",
  mailerLiteGroupId: null,
  overrides,
});

describe("mergeTenantConfig", () => {
  it("gives a tenant without overrides the SPEC defaults", () => {
    const config = mergeTenantConfig(record());
    expect(config.branding.primaryColor).toBe("#4a90e2");
    expect(config.branding.secondaryColor).toBe("#f5a623");
    expect(config.branding.accentColor).toBe("#50e3c2");
    expect(config.emailGroups).toEqual({
      default: "newsletter",
      groups: ["newsletter", "product-updates", "industry-news"],
    });
    expect(config.features.doubleOptIn).toBe(true);
    expect(config.branding.companyName).toBe("Acme Legal");
  });

  it("drops stored allowed sites that are not proper origins (saved before issue 44)", () => {
    const config = mergeTenantConfig(
      record({ embedOrigins: ["https://*", "https://ok.example", "{}", "https://%2a.example"] }),
    );
    expect(config.embedOrigins).toEqual(["https://ok.example"]);
  });

  it("falls back to the default name 'KeyDiscovery' when the tenant has none", () => {
    expect(mergeTenantConfig({ ...record(), name: "" }).name).toBe("KeyDiscovery");
  });

  it("merges each section key by key", () => {
    const config = mergeTenantConfig(
      record({
        branding: { primaryColor: "#112233" },
        emailTemplates: { welcomeEmail: { subject: "Hello from Acme" } },
        features: { enableDarkMode: true },
      }),
    );
    expect(config.branding.primaryColor).toBe("#112233");
    expect(config.branding.secondaryColor).toBe("#f5a623");
    expect(config.emailTemplates.welcomeEmail.subject).toBe("Hello from Acme");
    expect(config.emailTemplates.welcomeEmail.body).toBe(
      DEFAULT_TENANT_CONFIG.emailTemplates.welcomeEmail.body,
    );
    expect(config.emailTemplates.verificationEmail).toEqual(
      DEFAULT_TENANT_CONFIG.emailTemplates.verificationEmail,
    );
    expect(config.features).toMatchObject({ enableDarkMode: true, showBranding: true });
  });

  it("treats blank override strings as unset", () => {
    const config = mergeTenantConfig(record({ branding: { primaryColor: "  ", companyName: "" } }));
    expect(config.branding.primaryColor).toBe("#4a90e2");
    expect(config.branding.companyName).toBe("Acme Legal");
  });

  it("never mutates the defaults", () => {
    const before = JSON.stringify(DEFAULT_TENANT_CONFIG);
    const config = mergeTenantConfig(record({ branding: { primaryColor: "#000000" } }));
    config.branding.secondaryColor = "#ffffff";
    config.emailTemplates.welcomeEmail.subject = "changed";
    expect(JSON.stringify(DEFAULT_TENANT_CONFIG)).toBe(before);
  });
});
