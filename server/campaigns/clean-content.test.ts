import { describe, expect, it } from "vitest";
import { cleanCampaignContent } from "./clean-content";

describe("cleanCampaignContent (SPEC §5)", () => {
  it("decodes escaped angle brackets", () => {
    expect(
      cleanCampaignContent("&lt;p&gt;Hello &lt;strong&gt;world&lt;/strong&gt;&lt;/p&gt;"),
    ).toBe("<p>Hello <strong>world</strong></p>");
  });

  it("strips the title, html, head and body tags, keeping the body's content", () => {
    const page =
      "<html><head><title>Issue 12</title></head><body><h2>Lead</h2><p>Text</p></body></html>";
    expect(cleanCampaignContent(page)).toBe("<h2>Lead</h2><p>Text</p>");
  });

  it("removes empty divs and paragraphs, even nested ones", () => {
    expect(
      cleanCampaignContent("<div><div> </div></div><p>Kept</p><p>&nbsp;</p><p><br></p><p></p>"),
    ).toBe("<p>Kept</p>");
  });

  it("collapses repeated line breaks", () => {
    expect(cleanCampaignContent("<p>One<br><br/><br />Two</p>")).toBe("<p>One<br />Two</p>");
    expect(cleanCampaignContent("<p>One</p>\n\n\n\n<p>Two</p>")).toBe("<p>One</p>\n\n<p>Two</p>");
  });

  it("removes a lone 'Newsletter' line but not the word inside a sentence", () => {
    expect(cleanCampaignContent("<p>Newsletter</p><p>Our Newsletter is weekly.</p>")).toBe(
      "<p>Our Newsletter is weekly.</p>",
    );
    expect(cleanCampaignContent("Newsletter\n<p>Body</p>")).toBe("<p>Body</p>");
    expect(cleanCampaignContent("<h1> Newsletter </h1><p>Body</p>")).toBe("<p>Body</p>");
  });

  it("never lets decoded text become script", () => {
    const cleaned = cleanCampaignContent(
      '&lt;script&gt;alert(1)&lt;/script&gt;<p onclick="x()">Hi</p><a href="javascript:alert(1)">x</a>',
    );
    expect(cleaned).not.toMatch(/<script|onclick|javascript:/i);
    expect(cleaned).toContain("<p>Hi</p>");
  });
});
