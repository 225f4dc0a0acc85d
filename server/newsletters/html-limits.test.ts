import { strToU8 } from "fflate";
import { describe, expect, it } from "vitest";
import { parseArchive } from "./archive-formats";
import { htmlLimitProblem, IMPORT_HTML_LIMITS } from "./html-limits";

/** One post of 20,000 nested <div> (issue 44, finding 2), as in the probe's Ghost export. */
const nested = `${"<div>".repeat(20_000)}deep${"</div>".repeat(20_000)}`;

function ghostJson(posts: { id: string; title: string; slug: string; html: string }[]) {
  return JSON.stringify({
    db: [
      {
        meta: { version: "5.0.0" },
        data: {
          posts: posts.map((post) => ({
            ...post,
            status: "published",
            published_at: "2024-01-02T03:04:05.000Z",
            created_at: "2024-01-02T03:04:05.000Z",
          })),
          tags: [],
          posts_tags: [],
          users: [],
          posts_authors: [],
        },
      },
    ],
  });
}

describe("htmlLimitProblem", () => {
  it("passes an ordinary post", () => {
    expect(htmlLimitProblem("<h2>Hi</h2><p>One <em>two</em><br>three</p><img src=x>")).toBeNull();
  });

  it("refuses too long, too deep and too many elements, saying which", () => {
    expect(htmlLimitProblem("x".repeat(IMPORT_HTML_LIMITS.maxChars + 1))).toBe(
      "Its HTML is 2,000,001 characters long; at most 2,000,000 are imported.",
    );
    expect(htmlLimitProblem(nested)).toBe(
      "Its HTML nests elements more than 100 deep; at most 100 levels are imported.",
    );
    expect(htmlLimitProblem("<div>".repeat(100))).toBeNull();
    expect(htmlLimitProblem("<p><b>x</b></p>".repeat(15_001))).toBe(
      "Its HTML has more than 30,000 elements; at most 30,000 are imported.",
    );
    // Void and closed elements do not deepen.
    expect(htmlLimitProblem("<p>a<br><img src=x></p>".repeat(5_000))).toBeNull();
  });
});

describe("a Ghost export with one pathological post", () => {
  it("skips that post by name, fast, and imports the others cleaned", async () => {
    const json = ghostJson([
      {
        id: "1",
        title: "Fine post",
        slug: "fine",
        html: '<p>Hi<img src=x onerror="alert(1)"></p><script>alert(2)</script>',
      },
      { id: "2", title: "Huge post", slug: "huge-post", html: nested },
      {
        id: "3",
        title: "Inline flood",
        slug: "flood",
        html: `<p>${"<b>x</b>".repeat(40_000)}</p>`,
      },
    ]);
    const started = performance.now();
    const { posts, skipped } = await parseArchive("ghost", strToU8(json), { siteUrl: null });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(skipped).toEqual([
      {
        item: "Huge post",
        reason: "Its HTML nests elements more than 100 deep; at most 100 levels are imported.",
      },
      {
        item: "Inline flood",
        reason: "Its HTML has more than 30,000 elements; at most 30,000 are imported.",
      },
    ]);
    expect(posts.map((post) => post.slug)).toEqual(["fine"]);
    // Cleaned at import as at display (finding 8): no script, no handler is ever stored.
    expect(posts[0]?.html).toBe('<p>Hi<img src="x" /></p>');
  });
});
