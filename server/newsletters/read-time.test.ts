import { describe, expect, it } from "vitest";
import { estimateReadTime, newsletterInputSchema } from "./newsletter-form";

describe("read time counted from the text (issue 15, part 7)", () => {
  const words = (count: number) => Array.from({ length: count }, (_, i) => `word${i}`).join(" ");

  it("is the words ÷ 230, rounded, at least one minute", () => {
    expect(estimateReadTime("<p>One short line.</p>")).toBe(1);
    expect(estimateReadTime(`<p>${words(230 * 4)}</p>`)).toBe(4);
    expect(estimateReadTime(`<p>${words(230 * 4 + 120)}</p>`)).toBe(5);
    expect(estimateReadTime("")).toBe(1);
  });

  it("counts the words of the text, not the markup, entities or punctuation alone", () => {
    const html = `<h2 class="x">Heading here</h2><p><a href="https://example.com/a/b/c">link</a> &amp; — ${words(458)}</p><img src="/uploads/a.png" alt="">`;
    expect(estimateReadTime(html)).toBe(2);
  });

  it("takes a blank read time as 'count it', and a number as the writer's own", () => {
    const base = { title: "T", excerpt: "E", content: "<p>Text</p>" };
    expect(newsletterInputSchema.parse(base).readTime).toBeUndefined();
    expect(newsletterInputSchema.parse({ ...base, readTime: "7" }).readTime).toBe(7);
    expect(newsletterInputSchema.safeParse({ ...base, readTime: "0" }).success).toBe(false);
  });
});
