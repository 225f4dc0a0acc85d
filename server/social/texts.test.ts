import { describe, expect, it } from "vitest";
import { charCount, LINKEDIN_MAX, SHORT_MAX } from "../../shared/schemas/social";
import {
  clip,
  hashtag,
  hashtagsOf,
  linkedInPost,
  outlineOf,
  pointsOf,
  type SocialSource,
  shortPost,
} from "./texts";

const source = (over: Partial<SocialSource> = {}): SocialSource => ({
  title: "Five things about TAR",
  excerpt: "Technology-assisted review, explained for general counsel. With a checklist.",
  content: [
    "<p>Intro paragraph that sets the scene. It goes on.</p>",
    "<h2>Why recall matters</h2><p>Body.</p>",
    "<blockquote><p>Preserve first,</p><p>argue later.</p></blockquote>",
    "<h3>Validation &amp; sampling</h3>",
    "<h2>What to ask your vendor</h2>",
    "<h2>A fourth heading</h2>",
  ].join(""),
  slug: "five-things-about-tar",
  tags: ["eDiscovery", "legal tech", "TAR", "e-discovery", "2026"],
  origin: "https://news.example.com",
  companyName: "KeyDiscovery",
  ...over,
});

describe("the social pack's texts", () => {
  it("reads headings, paragraphs and pull quotes from the newsletter", () => {
    const outline = outlineOf(source().content);
    expect(outline.headings).toEqual([
      "Why recall matters",
      "Validation & sampling",
      "What to ask your vendor",
      "A fourth heading",
    ]);
    expect(outline.quotes).toEqual(["Preserve first, argue later."]);
    // A quote's paragraphs are the quote's, not the newsletter's.
    expect(outline.paragraphs).toEqual([
      "Intro paragraph that sets the scene. It goes on.",
      "Body.",
    ]);
  });

  it("draws three points from the headings, else from the first paragraphs' first sentences", () => {
    expect(pointsOf(outlineOf(source().content))).toEqual([
      "Why recall matters",
      "Validation & sampling",
      "What to ask your vendor",
    ]);
    const plain = outlineOf("<h2>Only one</h2><p>First one. More.</p><p>Second! Yes.</p><p>x</p>");
    expect(pointsOf(plain)).toEqual(["Only one", "First one.", "Second!"]);
    expect(pointsOf(outlineOf(""))).toEqual([]);
  });

  it("makes hashtags of the tags: words joined, no duplicates, no bare numbers", () => {
    expect(hashtag("legal tech")).toBe("#legalTech");
    expect(hashtag("Café & Co.")).toBe("#CaféCo");
    expect(hashtag("2026")).toBeNull();
    expect(hashtag("--")).toBeNull();
    expect(hashtagsOf(source().tags)).toEqual(["#eDiscovery", "#legalTech", "#TAR"]);
  });

  it("writes the LinkedIn post: hook, title, three points, the UTM link, hashtags", () => {
    const post = linkedInPost(source());
    expect(post).toBe(
      [
        "Technology-assisted review, explained for general counsel.",
        "New from KeyDiscovery: Five things about TAR",
        "→ Why recall matters\n→ Validation & sampling\n→ What to ask your vendor",
        "Read it here: https://news.example.com/newsletter/five-things-about-tar?utm_source=linkedin&utm_medium=social&utm_campaign=five-things-about-tar",
        "#eDiscovery #legalTech #TAR",
      ].join("\n\n"),
    );
  });

  it("uses the title as the hook when there is no excerpt, and leaves out what is missing", () => {
    const post = linkedInPost(source({ excerpt: "", content: "", tags: [] }));
    expect(post.split("\n\n")).toEqual([
      "Five things about TAR",
      "New from KeyDiscovery.",
      expect.stringContaining("utm_source=linkedin"),
    ]);
  });

  it("stays within LinkedIn's 3,000 characters, points shortened first", () => {
    const long = "word ".repeat(400);
    const post = linkedInPost(
      source({
        title: long,
        excerpt: long,
        content: `<h2>${long}</h2><h2>${long}x</h2><h2>${long}y</h2>`,
        tags: Array.from({ length: 10 }, (_, i) => `tag${i}${"a".repeat(30)}`),
      }),
    );
    expect(charCount(post)).toBeLessThanOrEqual(LINKEDIN_MAX);
    expect(post).toContain("utm_source=linkedin");
    for (const line of post.split("\n").filter((one) => one.startsWith("→ ")))
      expect(charCount(line)).toBeLessThanOrEqual(202);
  });

  it("writes the short post within 280 characters with its own source", () => {
    const short = shortPost(source());
    expect(short).toBe(
      "Five things about TAR https://news.example.com/newsletter/five-things-about-tar?utm_source=x&utm_medium=social&utm_campaign=five-things-about-tar #eDiscovery #legalTech",
    );
    const slug = "s".repeat(120);
    for (const title of ["t ".repeat(300), "Ünïcödé 🎉 ".repeat(40)]) {
      const long = shortPost(source({ title, slug }));
      expect(charCount(long)).toBeLessThanOrEqual(SHORT_MAX);
      expect(long).toContain(`/newsletter/${slug}?utm_source=x`);
      expect(long).toContain("…");
    }
  });

  it("clips at a word boundary and marks the cut", () => {
    expect(clip("short", 10)).toBe("short");
    expect(clip("one two three four", 12)).toBe("one two…");
    expect(charCount(clip("🎉".repeat(20), 5))).toBe(5);
  });
});
