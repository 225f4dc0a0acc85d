import { describe, expect, it } from "vitest";
import { DEFAULT_TENANT_CONFIG, FIXED_SENDER, mergeTenantConfig } from "../tenants/config";
import { SEED_TENANTS } from "../tenants/seed";
import { renderEmail, senderFor } from "./templates";

const tenant = mergeTenantConfig({
  id: "keydiscovery",
  name: "KeyDiscovery Legal",
  domain: null,
  description: "",
  mailerLiteGroupId: null,
  overrides: {
    branding: { primaryColor: "#1b365d", companyAddress: "77 West Wacker Drive, Chicago" },
    emailTemplates: {
      welcomeEmail: { subject: "Welcome aboard", body: "First paragraph.\n\nSecond paragraph." },
    },
    email: { senderName: "KD Legal", senderEmail: "news@kd.example" },
  },
});

const ORIGIN = "https://kd.example";

describe("email templates", () => {
  it("renders the tenant's subject, body, branding and lists, with a text part", async () => {
    const email = await renderEmail(
      tenant,
      {
        kind: "welcome",
        listNames: ["KeyDiscovery Legal Newsletter"],
        links: {
          preferencesUrl: "https://x/preferences/t",
          unsubscribeUrl: "https://x/unsubscribe?email=a",
        },
      },
      ORIGIN,
    );
    expect(email.subject).toBe("Welcome aboard");
    expect(email.html).toContain("#1b365d");
    expect(email.html).toContain("77 West Wacker Drive, Chicago");
    expect(email.html).toContain("Second paragraph.");
    expect(email.text).toContain("First paragraph.");
    expect(email.text).toContain("KeyDiscovery Legal Newsletter");
    expect(email.text).toContain("https://x/unsubscribe?email=a");
  });

  it("escapes what it is given", async () => {
    const email = await renderEmail(
      tenant,
      {
        kind: "bounce",
        email: "<b>x</b>@example.com",
        links: {},
      },
      ORIGIN,
    );
    expect(email.html).not.toContain("<b>x</b>");
  });

  it("takes the sender from the template, then the tenant's settings, then the fixed default", () => {
    expect(
      senderFor(tenant, {
        ...tenant.emailTemplates.welcomeEmail,
        fromName: "",
        senderName: "",
        fromEmail: "",
      }),
    ).toEqual({
      name: "KD Legal",
      email: "news@kd.example",
    });
    const bare = {
      ...DEFAULT_TENANT_CONFIG,
      id: "x",
      email: { senderName: "", senderEmail: "", replyTo: "" },
    };
    expect(
      senderFor(bare, { subject: "", body: "", senderName: "", fromName: "", fromEmail: "" }),
    ).toEqual({
      name: FIXED_SENDER.name,
      email: FIXED_SENDER.email,
    });
  });
});

describe("one sender name per tenant (issue 35)", () => {
  it("sends the seeded KeyDiscovery Legal's mail from its own name unless a template says otherwise", () => {
    const seed = SEED_TENANTS.find((each) => each.id === "keydiscovery");
    if (!seed) throw new Error("no keydiscovery seed");
    const legal = mergeTenantConfig({ ...seed, domain: null, mailerLiteGroupId: null });
    for (const template of Object.values(legal.emailTemplates)) {
      expect(senderFor(legal, template).name).toBe("KeyDiscovery Legal");
    }
    const onPurpose = { ...legal.emailTemplates.bounceNotificationEmail, senderName: "Desk" };
    expect(senderFor(legal, onPurpose).name).toBe("Desk");
  });
});
