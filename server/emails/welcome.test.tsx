import { describe, expect, it } from "vitest";
import { testTenantConfig } from "../../tests/support/tenant-config";
import type { TenantConfig } from "../tenants/config";
import { renderEmail } from "./templates";
import { publishingCadence, type WelcomeIssues } from "./welcome";

const ORIGIN = "https://kd.example";

describe("publishing cadence", () => {
  const daysApart = (...days: number[]) =>
    days.map((day) => new Date(Date.UTC(2026, 10, 30) - day * 86_400_000).toISOString());

  it("says how often from the middle gap between the newest issues", () => {
    expect(publishingCadence(daysApart(0, 7, 14, 21, 28))).toBe("about once a week");
    // one late issue does not change the rhythm
    expect(publishingCadence(daysApart(0, 7, 14, 40))).toBe("about once a week");
    expect(publishingCadence(daysApart(0, 14, 28, 42))).toBe("about every two weeks");
    expect(publishingCadence(daysApart(0, 30, 61))).toBe("about once a month");
    expect(publishingCadence(daysApart(0, 2, 4, 6))).toBe("a few times a week");
    expect(publishingCadence(daysApart(0, 1, 2))).toBe("about every day");
  });

  it("says nothing with fewer than three issues, or issues months apart", () => {
    expect(publishingCadence([])).toBeNull();
    expect(publishingCadence(daysApart(0, 7))).toBeNull();
    expect(publishingCadence(daysApart(0, 90, 180))).toBeNull();
    expect(publishingCadence(["not a date", "2026-11-01", "2026-11-08"])).toBeNull();
  });
});

describe("default welcome mail", () => {
  const links = { preferencesUrl: "https://x/p", unsubscribeUrl: "https://x/u" };
  const welcomeOf = (tenant: TenantConfig, issues: WelcomeIssues) =>
    renderEmail(
      tenant,
      { kind: "welcome", listNames: ["Legal Newsletter"], links, issues },
      ORIGIN,
    );

  it("names the tenant, says what to expect from its description and links the latest issue", async () => {
    const tenant = testTenantConfig(
      { branding: { companyName: "KD Legal" } },
      "Court rulings and filing deadlines for in-house counsel, every Tuesday.",
    );
    const email = await welcomeOf(tenant, {
      latest: { title: "Q3 <rulings> & you", url: `${ORIGIN}/newsletter/q3` },
      cadence: "about once a week",
    });
    expect(email.subject).toBe("Welcome to our newsletter");
    expect(email.html).toContain("Welcome to KD Legal");
    expect(email.text).toContain("as soon as it is published, about once a week.");
    expect(email.html).toContain("Court rulings and filing deadlines for in-house counsel");
    expect(email.html).toContain("Q3 &lt;rulings&gt; &amp; you");
    expect(email.html).toContain(`href="${ORIGIN}/newsletter/q3"`);
    expect(email.text).toContain("Read the latest issue");
    expect(email.text).toContain(`${ORIGIN}/newsletter/q3`);
    expect(email.text).toMatch(/You are subscribed to:\n• Legal Newsletter/);
  });

  it("says nothing of a latest issue when there is none", async () => {
    const tenant = testTenantConfig({ branding: { companyName: "KD Legal" } });
    const email = await welcomeOf(tenant, { latest: null, cadence: null });
    expect(email.html).toContain("Welcome to KD Legal");
    expect(email.html).not.toContain("latest issue");
    expect(email.html).not.toContain("What to expect");
    expect(email.text).toContain("as soon as it is published.");
  });

  it("leaves a tenant's own welcome text as it wrote it", async () => {
    const tenant = testTenantConfig({
      emailTemplates: { welcomeEmail: { subject: "Hi", body: "Our own words." } },
    });
    const email = await welcomeOf(tenant, {
      latest: { title: "Q3", url: `${ORIGIN}/newsletter/q3` },
      cadence: "about once a week",
    });
    expect(email.html).toContain("Our own words.");
    expect(email.html).not.toContain("Read the latest issue");
    expect(email.html).not.toContain("about once a week");
  });
});
