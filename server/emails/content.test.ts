import { describe, expect, it } from "vitest";
import { EMAIL_CONTENT_WIDTH, emailContentHtml } from "./content";
import { absoluteSrcset, absoluteUrl } from "./urls";

const ORIGIN = "https://news.example";
const style = { origin: ORIGIN, textColor: "#111111", linkColor: "#0044aa" };

describe("absoluteUrl", () => {
  it("resolves relative and protocol-relative URLs on the origin, and keeps mail's own schemes", () => {
    expect(absoluteUrl("/uploads/main/a.png", ORIGIN)).toBe(
      "https://news.example/uploads/main/a.png",
    );
    expect(absoluteUrl("newsletter/x?a=1&b=2", ORIGIN)).toBe(
      "https://news.example/newsletter/x?a=1&b=2",
    );
    expect(absoluteUrl("//cdn.example/i.png", ORIGIN)).toBe("https://cdn.example/i.png");
    expect(absoluteUrl("#top", ORIGIN)).toBe("https://news.example/#top");
    expect(absoluteUrl("mailto:a@b.example", ORIGIN)).toBe("mailto:a@b.example");
    expect(absoluteUrl("tel:+15551234", ORIGIN)).toBe("tel:+15551234");
    expect(absoluteUrl("http://other.example/x", ORIGIN)).toBe("http://other.example/x");
    expect(absoluteUrl("%%HERALD_CLICK_3%%", ORIGIN)).toBe("%%HERALD_CLICK_3%%");
  });

  it("refuses what a mail cannot load", () => {
    expect(absoluteUrl("javascript:alert(1)", ORIGIN)).toBeNull();
    expect(absoluteUrl("data:image/png;base64,AAAA", ORIGIN)).toBeNull();
    expect(absoluteUrl("cid:part1", ORIGIN)).toBeNull();
  });

  it("makes every srcset candidate absolute", () => {
    expect(absoluteSrcset("/a-600.jpg 600w, /a-1200.jpg 1200w", ORIGIN)).toBe(
      "https://news.example/a-600.jpg 600w, https://news.example/a-1200.jpg 1200w",
    );
  });
});

describe("emailContentHtml", () => {
  it("rewrites relative links and images, and drops images a mail cannot load", () => {
    const html = emailContentHtml(
      '<p><a href="/newsletter/a">read</a> <a href="javascript:x()">bad</a></p>' +
        '<img src="/uploads/main/x.png" alt="Chart"><img src="data:image/png;base64,AAAA" alt="inline">',
      style,
    );
    expect(html).toContain('href="https://news.example/newsletter/a"');
    expect(html).not.toContain("javascript:");
    expect(html).toContain('src="https://news.example/uploads/main/x.png"');
    expect(html).not.toContain("data:");
    expect(html).not.toContain('alt="inline"');
  });

  it("fits images to the column with width and height, fluid on phones", () => {
    const html = emailContentHtml('<img src="/a.png" alt="Wide" width="1200" height="600">', style);
    expect(html).toContain(`width="${EMAIL_CONTENT_WIDTH}"`);
    expect(html).toContain(`height="${EMAIL_CONTENT_WIDTH / 2}"`);
    expect(html).toMatch(/style="[^"]*width:100%;max-width:536px/);
    const small = emailContentHtml('<img src="/b.png" alt="Small" width="120" height="40">', style);
    expect(small).toContain('width="120"');
    expect(small).toContain("max-width:120px");
  });

  it("takes an uploaded image's size from the store when the content does not say it", () => {
    const html = emailContentHtml('<img src="/uploads/main/c.png" alt="C">', {
      ...style,
      imageSize: (src) =>
        src === "https://news.example/uploads/main/c.png" ? { width: 800, height: 400 } : undefined,
    });
    expect(html).toContain(`width="${EMAIL_CONTENT_WIDTH}"`);
    expect(html).toContain('height="268"');
  });

  it("gives every image alt text and the typography inline", () => {
    const html = emailContentHtml(
      '<h2>Title</h2><p>Text <a href="/x">link</a></p><img src="https://x.example/i.png">',
      style,
    );
    expect(html).toContain('alt=""');
    expect(html).toMatch(/<h2 style="[^"]*font-size:22px/);
    expect(html).toMatch(/<p style="margin:0 0 16px">/);
    expect(html).toMatch(/<a [^>]*style="color:#0044aa;/);
  });

  it("keeps content markup safe: script and event handlers stay out", () => {
    const html = emailContentHtml('<p onclick="x()">Hi</p><script>alert(1)</script>', style);
    expect(html).not.toContain("onclick");
    expect(html).not.toContain("<script");
  });
});
