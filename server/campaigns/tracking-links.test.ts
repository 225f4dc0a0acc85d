import { describe, expect, it } from "vitest";
import {
  clickMarker,
  extractLinks,
  markLinks,
  signTrackingToken,
  verifyTrackingToken,
  withoutOpenPixel,
} from "./tracking-links";

const SECRET = "s".repeat(40);

describe("tracking tokens", () => {
  it("verify what was signed, for that kind only", () => {
    const token = signTrackingToken(SECRET, "click", 42, 3);
    expect(verifyTrackingToken(SECRET, "click", token)).toEqual({ deliveryId: 42, link: 3 });
    expect(verifyTrackingToken(SECRET, "open", token)).toBeNull();
    expect(verifyTrackingToken("t".repeat(40), "click", token)).toBeNull();
  });

  it("refuse a token whose delivery or link number was changed", () => {
    const token = signTrackingToken(SECRET, "click", 42, 3);
    const [, , sig] = token.split(".");
    expect(verifyTrackingToken(SECRET, "click", `43.3.${sig}`)).toBeNull();
    expect(verifyTrackingToken(SECRET, "click", `42.4.${sig}`)).toBeNull();
    expect(verifyTrackingToken(SECRET, "click", "42.3")).toBeNull();
    expect(verifyTrackingToken(SECRET, "click", "x".repeat(5000))).toBeNull();
  });
});

describe("links", () => {
  const html =
    '<p><a href="https://example.com/a?x=1&amp;y=2">A</a> <a href="https://example.com/b">B</a> ' +
    '<a href="https://example.com/a?x=1&amp;y=2">A again</a> <a href="mailto:x@example.com">mail</a> ' +
    '<a href="/relative">rel</a></p>';

  it("extracts each distinct http(s) link once, decoded", () => {
    expect(extractLinks(html)).toEqual(["https://example.com/a?x=1&y=2", "https://example.com/b"]);
  });

  it("marks the tracked links and leaves the others", () => {
    const marked = markLinks(html, extractLinks(html));
    expect(marked.split(clickMarker(0))).toHaveLength(3);
    expect(marked).toContain(`href="${clickMarker(1)}"`);
    expect(marked).toContain('href="mailto:x@example.com"');
    expect(marked).toContain('href="/relative"');
  });
});

describe("the outbox's copy of a campaign mail", () => {
  it("loses its open pixel and keeps everything else", () => {
    const html =
      '<p>Hi <img src="https://kd.example/logo.png" alt="KD"></p><img src="https://kd.example/t/o/abc.def.gif" width="1" height="1" alt="">';
    expect(withoutOpenPixel(html)).toBe(
      '<p>Hi <img src="https://kd.example/logo.png" alt="KD"></p>',
    );
  });
});
