import { describe, expect, it } from "vitest";
import { firstFreeSlug, isUsableSlug, slugFor } from "./slugs";

describe("newsletter slugs (issue 15, part 1)", () => {
  it("makes a slug from the title: lower case ASCII words joined by hyphens", () => {
    expect(slugFor("Défensible review: AI & the «new» rules — 2026!")).toBe(
      "defensible-review-ai-and-the-new-rules-2026",
    );
    expect(slugFor("   ")).toBe("newsletter");
    expect(slugFor("x".repeat(300))).toHaveLength(120);
  });

  it("never hands out a reserved word, an id-shaped slug, or one taken", () => {
    expect(isUsableSlug("subscribe")).toBe(false);
    expect(isUsableSlug("rss")).toBe(false);
    expect(isUsableSlug("0b7c2e1a-1111-4222-8333-444455556666")).toBe(false);
    expect(isUsableSlug("Has-Capitals")).toBe(false);
    expect(isUsableSlug("double--hyphen")).toBe(false);
    expect(firstFreeSlug("subscribe", () => false)).toBe("subscribe-1");
    const taken = new Set(["issue", "issue-2"]);
    expect(firstFreeSlug("issue", (slug) => taken.has(slug))).toBe("issue-3");
  });
});
