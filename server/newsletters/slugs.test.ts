import { describe, expect, it } from "vitest";
import routes from "../../app/routes";
import { parseArchive } from "./archive-formats";
import { newsletterInputSchema } from "./newsletter-form";
import { firstFreeSlug, isUsableSlug, slugFor, TOP_LEVEL_SEGMENTS } from "./slugs";

interface RouteEntry {
  path?: string;
  children?: RouteEntry[];
}

/** The static first segment of every route of app/routes.ts, as the router reads them. */
function firstSegmentsOf(entries: RouteEntry[], base = ""): string[] {
  return entries.flatMap((entry) => {
    const path = [base, entry.path ?? ""].filter(Boolean).join("/");
    const first = path.split("/")[0] ?? "";
    const own = first && !/[:*?]/.test(first) ? [first.replace(/\.[a-z]+$/, "")] : [];
    return [...own, ...firstSegmentsOf(entry.children ?? [], path)];
  });
}

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

/*
 * Issue 44, finding 11: an imported slug `../../admin` became `admin`, and `/admin` then answered
 * 301 to /newsletter/admin (old addresses). The site's own first segments are never given out.
 */
describe("slugs the site's routes hold", () => {
  it("holds every first segment of app/routes.ts, and the old addresses' /p/", () => {
    for (const segment of firstSegmentsOf(routes as RouteEntry[])) {
      expect(TOP_LEVEL_SEGMENTS.has(segment), segment).toBe(true);
    }
    for (const segment of ["admin", "api", "embed", "uploads", "newsletter", "p", "assets"]) {
      expect(TOP_LEVEL_SEGMENTS.has(segment), segment).toBe(true);
      expect(isUsableSlug(segment), segment).toBe(false);
    }
    expect(firstFreeSlug("admin", () => false)).toBe("admin-1");
  });

  it("gives an imported post a reserved slug with a suffix, saying why", async () => {
    const post = (id: string, slug: string) => ({
      id,
      uuid: "00000000-0000-4000-8000-000000000000",
      type: "post",
      status: "published",
      visibility: "public",
      title: `Post ${id}`,
      slug,
      html: "<p>Body</p>",
      created_at: "2021-03-01T09:00:00.000Z",
      published_at: "2021-03-01T09:00:00.000Z",
    });
    const archive = JSON.stringify({
      db: [
        {
          meta: { exported_on: 1700000000000, version: "5.75.0" },
          data: { posts: [post("p1", "../../admin"), post("p2", "api"), post("p3", "uploads")] },
        },
      ],
    });
    const { posts } = await parseArchive("ghost", new TextEncoder().encode(archive), {
      siteUrl: null,
    });
    expect(posts.map((each) => each.slug)).toEqual(["admin-1", "api-1", "uploads-1"]);
    expect(posts[0]?.notes.join(" ")).toContain("is one of the site's own addresses");
  });

  it("refuses a reserved slug typed in the editor, with a clear message", () => {
    const parsed = newsletterInputSchema.safeParse({
      title: "A title",
      excerpt: "An excerpt",
      content: "<p>Body</p>",
      slug: "admin",
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.message)).toContain(
      "/admin is one of the site's own addresses. Choose another URL.",
    );
  });
});
