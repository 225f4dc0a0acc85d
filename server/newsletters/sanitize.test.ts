import { describe, expect, it } from "vitest";
import { sanitizeNewsletterHtml } from "./sanitize";

describe("sanitizeNewsletterHtml", () => {
  it("keeps what the editor produces", () => {
    const html =
      '<h2>Title</h2><p><strong>Bold</strong> and <em>italic</em></p><ul><li>One</li></ul><blockquote><p>Quote</p></blockquote><img src="/uploads/main/abc.png" alt="Chart">';
    expect(sanitizeNewsletterHtml(html)).toBe(html.replace('alt="Chart">', 'alt="Chart" />'));
  });

  it.each([
    ["<script>alert(1)</script><p>ok</p>", "<p>ok</p>"],
    ['<img src="x" onerror="alert(1)">', '<img src="x" />'],
    ['<a href="javascript:alert(1)">x</a>', "<a>x</a>"],
    ['<p style="position:fixed">x</p>', "<p>x</p>"],
    ['<iframe src="https://evil.example"></iframe>', ""],
    ['<svg onload="alert(1)"></svg>', ""],
  ])("neutralises %s", (input, expected) => {
    expect(sanitizeNewsletterHtml(input)).toBe(expected);
  });

  it("opens external links safely", () => {
    expect(sanitizeNewsletterHtml('<a href="https://example.com">x</a>')).toBe(
      '<a href="https://example.com" rel="noopener noreferrer nofollow" target="_blank">x</a>',
    );
  });
});
