import { describe, expect, it } from "vitest";
import { testTenantConfig } from "../../tests/support/tenant-config";
import { emailCover, newsletterByline, renderCampaignEmail } from "./campaign";
import { mailContentFor } from "./templates";

const ORIGIN = "https://kd.example";

const branded = testTenantConfig({
  branding: { logoUrl: "/uploads/logo.png", companyName: "KD Legal" },
  timeZone: "America/Los_Angeles",
});

async function campaign(tenant = branded, content = "<p>Body text.</p>") {
  return renderCampaignEmail(tenant, {
    origin: ORIGIN,
    headline: "Weekly briefing",
    byline: newsletterByline({
      author: "Ann Lee",
      // 03:00 UTC on the 22nd is still the 21st in Los Angeles
      date: "2026-11-22T03:00:00.000Z",
      readTime: 4,
      timeZone: tenant.timeZone,
    }),
    cover: emailCover(`${ORIGIN}/uploads/cover.jpg`, "A courtroom at dawn", {
      width: 1600,
      height: 900,
    }),
    preheader: "This week",
    contentHtml: mailContentFor(tenant, content, ORIGIN),
    viewInBrowserUrl: `${ORIGIN}/newsletter/weekly`,
    why: "You receive this because you subscribed.",
    trackOpens: true,
  });
}

describe("campaign email", () => {
  it("carries the tenant's logo as an absolute URL, and the name beside it", async () => {
    const { html, text } = await campaign();
    expect(html).toMatch(
      /<img[^>]*alt="KD Legal"[^>]*src="https:\/\/kd\.example\/uploads\/logo\.png"/,
    );
    expect(html).toContain(">KD Legal</p>");
    // the text part names the tenant once, not as an image too
    expect(text).not.toContain("[Image: KD Legal]");
    expect(text).toContain("KD Legal");
  });

  it("falls back to the company name as text when there is no logo", async () => {
    const plain = testTenantConfig({ branding: { companyName: "KD Legal" } });
    const { html } = await campaign(plain);
    expect(html).not.toContain("logo.png");
    expect(html).toContain(">KD Legal</p>");
  });

  it("shows the cover at the mail's width with its alt text, and the page's byline", async () => {
    const { html, text } = await campaign();
    const cover = /<img[^>]*alt="A courtroom at dawn"[^>]*>/.exec(html)?.[0] ?? "";
    expect(cover).toContain('src="https://kd.example/uploads/cover.jpg"');
    expect(cover).toContain('width="600"');
    expect(cover).toContain('height="338"');
    expect(html).toContain("By Ann Lee · November 21, 2026 · 4 min read");
    expect(text).toContain("By Ann Lee · November 21, 2026 · 4 min read");
    expect(text).toContain("[Image: A courtroom at dawn]");
    expect(text).toContain("Weekly briefing");
    // cover after the headline, content after the cover
    const order = ["Weekly briefing", "A courtroom at dawn", "Body text."].map((part) =>
      html.indexOf(part),
    );
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it("keeps the content's images as their alt text in the text part, leaving out those without", async () => {
    const { text } = await campaign(
      branded,
      '<p>Before</p><img src="/uploads/chart.png" alt="Filings per month, up 12%"><img src="/uploads/spacer.png" alt=""><p>After</p>',
    );
    expect(text).toMatch(/Before\s+\[Image: Filings per month, up 12%\]\s+After/);
    expect(text).not.toContain("[Image: ]");
    expect(text).not.toContain("spacer");
    // the open pixel has no alt: nothing of it in the text
    expect(text).not.toContain("HERALD_OPEN");
  });

  it("dates the byline in UTC for a tenant that keeps the default zone", () => {
    expect(
      newsletterByline({
        author: null,
        date: "2026-11-22T03:00:00.000Z",
        readTime: 1,
        timeZone: "UTC",
      }),
    ).toBe("November 22, 2026 · 1 min read");
  });

  it("sizes a cover smaller than the mail as it is, and an unknown one at the mail's width", () => {
    expect(emailCover("https://x/a.png", "a", { width: 400, height: 200 })).toEqual({
      src: "https://x/a.png",
      alt: "a",
      width: 400,
      height: 200,
    });
    expect(emailCover("https://x/a.png", "a", undefined)).toEqual({
      src: "https://x/a.png",
      alt: "a",
      width: 600,
    });
  });
});
