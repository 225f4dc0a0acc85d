import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { ghostExport, substackExport } from "../../tests/support/archive-fixtures";
import { parseArchive } from "./archive-formats";
import { ArchiveFileError, isoTime, plainText } from "./archive-posts";
import { renderLexical, renderMobiledoc } from "./ghost-content";

const base = "https://images.example";
const ghostArchive = await parseArchive("ghost", strToU8(ghostExport(base)), {
  siteUrl: "https://old.example",
});
const substackArchive = await parseArchive("substack", substackExport(base));

describe("Ghost's export", () => {
  const { posts, skipped } = ghostArchive;
  const bySlug = new Map(posts.map((post) => [post.slug, post]));

  it("reads the posts, and skips pages, untitled and empty posts with their reason", () => {
    expect(posts.map((post) => post.slug)).toEqual([
      "welcome",
      "lexical-post",
      "mobiledoc-post",
      "draft-one",
      "welcome-2",
      "coming-soon",
      "members-only",
      "broken-images",
    ]);
    expect(skipped).toEqual([
      { item: "About us", reason: "A page, not a post: Herald's pages are the site's own." },
      { item: "untitled", reason: "It has no title." },
      { item: "Nothing inside", reason: "It has no content." },
    ]);
  });

  it("keeps titles as text, tags in order without internal ones, the first author, dates", () => {
    const welcome = bySlug.get("welcome");
    expect(welcome?.title).toBe("Welcome & hello");
    expect(welcome?.excerpt).toBe("The very first one");
    expect(welcome?.tags).toEqual([
      { slug: "news", name: "News" },
      { slug: "case-law", name: "Case Law" },
    ]);
    expect(welcome?.author).toEqual({ name: "Jane Ghostwriter", email: "jane@ghost.example" });
    expect(welcome?.publishedAt).toBe("2021-03-04T10:00:00.000Z");
    expect(welcome?.featureAlt).toBe("A cover & more");
    expect(welcome?.html).not.toContain("script");
    expect(bySlug.get("lexical-post")?.author?.email).toBe("Editor@Example.com");
    expect(bySlug.get("mobiledoc-post")?.publishedAt).toBe(new Date(1500000000000).toISOString());
  });

  it("imports drafts, scheduled and paid posts as drafts, saying why", () => {
    expect(bySlug.get("draft-one")?.status).toBe("draft");
    expect(bySlug.get("coming-soon")?.status).toBe("draft");
    expect(bySlug.get("coming-soon")?.notes[0]).toMatch(/scheduled on Ghost/);
    expect(bySlug.get("members-only")?.status).toBe("draft");
    expect(bySlug.get("welcome-2")?.notes[0]).toMatch(/taken by an earlier post/);
  });

  it("resolves __GHOST_URL__ with the site's address", () => {
    expect(bySlug.get("broken-images")?.featureImage).toBe(
      "https://old.example/content/images/ghost-own.png",
    );
  });

  it("renders Lexical and mobiledoc when the html is missing, leaving unknown cards out", () => {
    const lexical = bySlug.get("lexical-post");
    expect(lexical?.html).toContain("<strong>bold words</strong>");
    expect(lexical?.html).toContain("<h2>Lexical heading</h2>");
    expect(lexical?.html).toContain("<ul><li>first point</li><li>second point</li></ul>");
    expect(lexical?.html).toContain("<blockquote><p>A quoted line</p></blockquote>");
    expect(lexical?.html).toContain(`<img src="${base}/inline.png" alt="Inline chart" />`);
    expect(lexical?.html).toContain("<pre><code>const x = 1 &lt; 2;</code></pre>");
    expect(lexical?.html).toContain("<hr />");
    expect(lexical?.notes).toEqual(["A “bookmark” card was left out."]);
    const mobile = bySlug.get("mobiledoc-post");
    expect(mobile?.html).toContain("<p>Mobiledoc says <strong>strongly</strong> and links <a");
    expect(mobile?.html).toContain("<ol><li>one</li><li>two</li></ol>");
    expect(mobile?.html).toContain("<figcaption>A caption</figcaption>");
    expect(mobile?.notes).toEqual(["A “gallery” card was left out."]);
  });
});

describe("Substack's export", () => {
  const { posts, skipped } = substackArchive;

  it("reads posts.csv and each post's HTML", () => {
    expect(posts.map((post) => [post.slug, post.status, post.title])).toEqual([
      ["first-issue", "published", "First & best issue"],
      ["paid-post", "draft", "Paid one"],
      ["a-substack-draft", "draft", "A Substack draft"],
      ["first-issue-2", "published", "First issue again"],
    ]);
    expect(posts[0]?.excerpt).toBe("The subtitle, with a comma");
    expect(posts[0]?.publishedAt).toBe("2022-01-10T12:00:00.000Z");
    expect(skipped).toEqual([
      { item: "Open thread", reason: "A discussion thread, not a post." },
      { item: "No body file", reason: "It has no content." },
    ]);
  });
});

describe("a file that is not an archive", () => {
  it.each([
    ["ghost", strToU8("not json")],
    ["ghost", strToU8('{"db":[{"data":{"posts":"no"}}]}')],
    ["ghost", strToU8("[]")],
    ["substack", strToU8("not a zip")],
    ["substack", zipSync({ "other.csv": strToU8("a,b\n1,2") })],
    ["ghost", new Uint8Array()],
  ] as const)("%s: refused whole", async (source, bytes) => {
    await expect(parseArchive(source, bytes)).rejects.toThrow(ArchiveFileError);
  });
});

describe("helpers", () => {
  it("reads titles and dates as exports write them", () => {
    expect(plainText("Tom &amp; Jerry&#8217;s &lt;b&gt; <em>day</em>\u0000")).toBe(
      "Tom & Jerry’s <b> day",
    );
    expect(isoTime("2021-01-02 03:04:05")).toBe("2021-01-02T03:04:05.000Z");
    expect(isoTime("nonsense")).toBeNull();
    expect(isoTime(0)).toBeNull();
  });

  it("survives broken JSON bodies", () => {
    expect(renderLexical("{").notes).toHaveLength(1);
    expect(renderMobiledoc("{").notes).toHaveLength(1);
  });
});

describe("text a database can store", () => {
  it("drops NUL and lone surrogates from a post's body", async () => {
    const json = JSON.stringify({
      db: [
        {
          data: {
            posts: [
              {
                id: 1,
                title: "T\u0000",
                slug: "t",
                status: "published",
                html: "<p>a\u0000b\ud800c</p>",
              },
            ],
          },
        },
      ],
    });
    const [post] = (await parseArchive("ghost", strToU8(json))).posts;
    expect(post?.title).toBe("T");
    expect(post?.html).toBe("<p>ab\ufffdc</p>");
  });
});
