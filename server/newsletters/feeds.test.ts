import { describe, expect, it } from "vitest";
import { escapeXml, renderRobotsTxt, rfc822 } from "./feeds";

describe("feeds", () => {
  it("escapes XML's five special characters and drops characters XML cannot carry", () => {
    expect(escapeXml(`Q&A <b> "x" 'y'`)).toBe("Q&amp;A &lt;b&gt; &quot;x&quot; &apos;y&apos;");
    expect(escapeXml("bell\u0007 tab\t")).toBe("bell tab\t");
  });

  it("writes RSS dates as RFC 822", () => {
    expect(rfc822("2026-11-22T09:30:00.000Z")).toBe("Sun, 22 Nov 2026 09:30:00 GMT");
  });

  it("closes the admin and subscription pages to crawlers and names the sitemap", () => {
    const robots = renderRobotsTxt("https://news.example.com");
    expect(robots).toContain("Disallow: /admin/\n");
    expect(robots).toContain("Disallow: /subscription/\n");
    expect(robots).toContain("Sitemap: https://news.example.com/sitemap.xml\n");
  });
});
