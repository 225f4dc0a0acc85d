import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crossTenant } from "../../server/db/tenant-guard";
import { createNewsletter } from "../../server/newsletters/editing";
import type { NewsletterInput } from "../../server/newsletters/newsletter-form";
import { publishNewsletter } from "../../server/newsletters/newsletters";
import { createStaffUser, signIn } from "../support/auth";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { postForm } from "../support/forms";
import { metaContent, textOf } from "../support/html";
import { testPng } from "../support/images";
import { type RunningServer, startServer } from "../support/server";

/** Issue 15, parts 2 and 4: tags, the archive by tag and by year, cover images and share cards. */

const KEYDISCOVERY = { cookie: "herald_subdomain=keydiscovery" };
const FORM = {
  title: "Tagged issue",
  excerpt: "An issue with tags.",
  content: "<p>Some words about review.</p>",
  readTime: "",
  slug: "",
};

describe.each(testDialects())("tags, archive, covers and share cards on %s", (dialect) => {
  let database: TestDatabase;
  let server: RunningServer;
  let uploadsDir: string;
  let editor = "";
  let otherEditor = "";

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    uploadsDir = mkdtempSync(join(tmpdir(), "herald-uploads-"));
    server = await startServer({ databaseUrl: database.url, env: { UPLOADS_DIR: uploadsDir } });
    await createStaffUser(database.db, { email: "tags@example.com", products: { main: true } });
    await createStaffUser(database.db, {
      email: "kd-tags@example.com",
      products: { keydiscovery: true },
    });
    editor = await signIn(server.url, "tags@example.com");
    otherEditor = await signIn(server.url, "kd-tags@example.com");
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
    if (uploadsDir) rmSync(uploadsDir, { recursive: true, force: true });
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { headers, redirect: "manual" });

  /** A newsletter made through the domain functions, published (at `publishedAt`) unless a draft. */
  async function seed(
    input: Partial<NewsletterInput> & { tenantId?: string; publishedAt?: string; draft?: boolean },
  ) {
    const ctx = { db: database.db, tenantId: input.tenantId ?? "main" };
    const newsletter = await createNewsletter(
      { ...ctx, authorId: null },
      {
        title: input.title ?? "A newsletter",
        excerpt: input.excerpt ?? "Its excerpt.",
        content: input.content ?? "<p>Words.</p>",
        tags: input.tags,
      },
    );
    if (!input.draft) {
      await publishNewsletter(ctx, newsletter.id);
      if (input.publishedAt) {
        await crossTenant(database.db)
          .updateTable("newsletters")
          .set({ published_at: input.publishedAt })
          .where("id", "=", newsletter.id)
          .execute();
      }
    }
    return newsletter;
  }

  const tagsOf = async (id: string) =>
    (
      await database.db
        .selectFrom("newsletter_tags")
        .innerJoin("tags", (join) =>
          join
            .onRef("tags.slug", "=", "newsletter_tags.tag_slug")
            .on("tags.tenant_id", "=", "main"),
        )
        .select(["tags.name", "tags.slug"])
        .where("newsletter_tags.tenant_id", "=", "main")
        .where("newsletter_id", "=", id)
        .orderBy("position")
        .execute()
    ).map((row) => `${row.name}=${row.slug}`);

  describe("tags in the editor", () => {
    it("saves the typed tags in order, once each, and offers the site's tags as suggestions", async () => {
      const response = await postForm(
        server.url,
        "/admin/newsletter/new",
        { ...FORM, tags: "eDiscovery, AI review , ediscovery,, Privilege logs" },
        editor,
      );
      expect(response.status).toBe(302);
      const id = /edit\/([^?]+)/.exec(response.headers.get("location") ?? "")?.[1] ?? "";
      expect(await tagsOf(id)).toEqual([
        "eDiscovery=ediscovery",
        "AI review=ai-review",
        "Privilege logs=privilege-logs",
      ]);
      const page = await (await get(`/admin/newsletter/edit/${id}`, { cookie: editor })).text();
      expect(page).toContain('value="eDiscovery, AI review, Privilege logs"');
      expect(page).toContain('aria-label="Remove tag AI review"');

      // A second newsletter is offered the first one's tags.
      const fresh = await (await get("/admin/newsletter/new", { cookie: editor })).text();
      expect(fresh).toMatch(/<datalist[^>]*>.*<option value="AI review"/s);

      // Editing replaces the list; a tag no newsletter carries any more leaves the suggestions.
      const edit = await postForm(
        server.url,
        `/admin/newsletter/edit/${id}`,
        { ...FORM, tags: "Privilege logs, eDiscovery" },
        editor,
      );
      expect(edit.status).toBe(302);
      expect(await tagsOf(id)).toEqual(["Privilege logs=privilege-logs", "eDiscovery=ediscovery"]);
      const tags = await database.db
        .selectFrom("tags")
        .select("slug")
        .where("tenant_id", "=", "main")
        .execute();
      expect(tags.map((tag) => tag.slug)).not.toContain("ai-review");
    });

    it.each([
      ["a tag over 40 characters", `${"x".repeat(41)}`, "at most 40 characters"],
      ["a tag without a letter or digit", "!!!", "needs a letter or a digit"],
      ["eleven tags", Array.from({ length: 11 }, (_, n) => `t${n}`).join(","), "at most 10 tags"],
    ])("refuses %s with a message and stores nothing", async (_label, tags, message) => {
      const before = await database.db
        .selectFrom("newsletters")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("tenant_id", "=", "main")
        .executeTakeFirstOrThrow();
      const response = await postForm(
        server.url,
        "/admin/newsletter/new",
        { ...FORM, tags },
        editor,
      );
      expect(response.status).toBe(400);
      expect(textOf(await response.text())).toContain(message);
      const after = await database.db
        .selectFrom("newsletters")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("tenant_id", "=", "main")
        .executeTakeFirstOrThrow();
      expect(Number(after.n)).toBe(Number(before.n));
    });
  });

  describe("tag pages, the tag filter and the archive by year", () => {
    const titles = (html: string) =>
      [...html.matchAll(/<h3 id="issue-[^"]+"[^>]*><a[^>]*>([^<]+)<\/a>/g)].map((m) => m[1]);

    beforeAll(async () => {
      for (let n = 1; n <= 12; n++) {
        await seed({
          title: `Review issue ${n}`,
          tags: [{ slug: "review-ops", name: "Review <ops>" }],
          publishedAt: `2025-0${(n % 9) + 1}-1${n % 10}T09:00:00.000Z`,
        });
      }
      await seed({
        title: "Governance in 2024",
        tags: [{ slug: "governance", name: "Governance" }],
        publishedAt: "2024-06-01T09:00:00.000Z",
      });
      await seed({
        title: "Secret draft",
        tags: [{ slug: "unannounced", name: "Unannounced" }],
        draft: true,
      });
      await seed({
        tenantId: "keydiscovery",
        title: "Other site",
        tags: [{ slug: "elsewhere", name: "Elsewhere" }],
      });
    });

    it("lists a tag's published issues, newest first, ten to a page, with the tag escaped", async () => {
      const first = await get("/newsletter/tag/review-ops");
      expect(first.status).toBe(200);
      const html = await first.text();
      expect(html).toContain("Review &lt;ops&gt;");
      expect(html).not.toContain("Review <ops>");
      expect(titles(html)).toHaveLength(10);
      expect(textOf(html)).toContain("12 issues about Review &lt;ops&gt;");
      expect(textOf(html)).toContain("Page 1 of 2");
      expect(html).not.toContain("Governance in 2024");
      const second = await (await get("/newsletter/tag/review-ops?page=2")).text();
      expect(titles(second)).toHaveLength(2);
      expect(second).toContain(
        `<link rel="canonical" href="http://localhost:${server.port}/newsletter/tag/review-ops?page=2"/>`,
      );
    });

    it("answers 404 for an unknown tag, a tag only drafts carry, another site's tag and a malformed one", async () => {
      for (const path of [
        "/newsletter/tag/nothing-here",
        "/newsletter/tag/unannounced",
        "/newsletter/tag/elsewhere",
        "/newsletter/tag/Not%20A%20Slug",
      ]) {
        const response = await get(path);
        expect(response.status, path).toBe(404);
        expect(await response.text()).not.toContain("Secret draft");
      }
      expect((await get("/newsletter/tag/elsewhere", KEYDISCOVERY)).status).toBe(200);
    });

    it("offers the tags with their counts and the years on the archive", async () => {
      const html = await (await get("/newsletter")).text();
      const text = textOf(html);
      expect(text).toMatch(/All issues Review &lt;ops&gt; \( 12 \) Governance \( 1 \)/);
      expect(text).not.toContain("Unannounced");
      expect(text).not.toContain("Elsewhere");
      expect(html).toContain('href="/newsletter/archive/2025"');
      expect(text).toContain("2024 ( 1 issue )");
    });

    it("lists a year's issues and answers 404 for a year without any", async () => {
      const html = await (await get("/newsletter/archive/2024")).text();
      expect(titles(html)).toEqual(["Governance in 2024"]);
      expect((await get("/newsletter/archive/2019")).status).toBe(404);
      expect((await get("/newsletter/archive/20x4")).status).toBe(404);
    });

    it("keeps the archive's later pages in the page cache, keyed by page", async () => {
      const path = "/newsletter/tag/review-ops?page=2";
      await get(path);
      const again = await get(path);
      expect(again.headers.get("x-page-cache")).toBe("hit");
      expect(titles(await again.text())).toHaveLength(2);
      // A parameter no page reads is not part of the key (issue 44): still a hit, the same page.
      const other = await get("/newsletter/tag/review-ops?page=2&utm=1");
      expect(other.headers.get("x-page-cache")).toBe("hit");
      expect(titles(await other.text())).toHaveLength(2);
      const first = await get("/newsletter/tag/review-ops?page=1");
      expect(first.headers.get("x-page-cache")).toBe("miss");
    });

    it("gives the feed's items their tags as categories, and the sitemap the tag pages", async () => {
      const feed = await (await get("/newsletter/rss.xml")).text();
      expect(feed).toContain("<category>Review &lt;ops&gt;</category>");
      const sitemap = await (await get("/sitemap.xml")).text();
      expect(sitemap).toContain(`/newsletter/tag/review-ops</loc>`);
      expect(sitemap).not.toContain("unannounced");
    });
  });

  describe("cover images and share cards", () => {
    const upload = async (cookie: string, width = 1600, height = 900) => {
      const form = new FormData();
      form.set("file", new Blob([testPng(width, height).slice()], { type: "image/png" }), "c.png");
      const response = await fetch(`${server.url}/admin/uploads`, {
        method: "POST",
        body: form,
        headers: { cookie, origin: server.url },
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { url: string }).url;
    };

    it("shows the cover above the article with its sources and description, and crops it for the share card", async () => {
      const cover = await upload(editor);
      const created = await postForm(
        server.url,
        "/admin/newsletter/new",
        {
          ...FORM,
          title: "With a cover",
          coverImage: cover,
          coverAlt: "A courtroom at dawn",
          intent: "publish",
        },
        editor,
      );
      expect(created.status).toBe(302);
      const html = await (await get("/newsletter/with-a-cover")).text();
      expect(html).toMatch(/<picture><source type="image\/avif" srcSet="[^"]+480w/);
      expect(html).toContain(`src="${cover}" alt="A courtroom at dawn" width="1200" height="675"`);

      const card = metaContent(html, "property", "og:image") ?? "";
      expect(card).toMatch(
        new RegExp(`^http://localhost:${server.port}/newsletter/with-a-cover/share-card\\?v=`),
      );
      expect(metaContent(html, "name", "twitter:card")).toBe("summary_large_image");
      expect(metaContent(html, "property", "og:image:alt")).toBe("A courtroom at dawn");
      const image = await get(new URL(card).pathname + new URL(card).search);
      expect(image.headers.get("content-type")).toBe("image/jpeg");
      const meta = await sharp(Buffer.from(await image.arrayBuffer())).metadata();
      expect([meta.width, meta.height]).toEqual([1200, 630]);

      // The archive's first page may be in the page cache from an earlier test: this year's is not.
      const year = new Date().getUTCFullYear();
      const archive = await (await get(`/newsletter/archive/${year}`)).text();
      expect(archive).toContain(`alt="A courtroom at dawn"`);
    });

    it("draws a branded card for a newsletter without a cover and for the site", async () => {
      const plain = await seed({ title: "No cover here" });
      for (const path of [`/newsletter/${plain.slug}/share-card`, "/brand/share-card"]) {
        const response = await get(path);
        expect(response.status, path).toBe(200);
        expect(response.headers.get("content-type")).toBe("image/png");
        const meta = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
        expect([meta.width, meta.height]).toEqual([1200, 630]);
      }
      const home = await (await get("/")).text();
      expect(metaContent(home, "property", "og:image")).toBe(
        `http://localhost:${server.port}/brand/share-card`,
      );
    });

    it("has no card for a draft or another site's newsletter", async () => {
      const draft = await seed({ title: "Card draft", draft: true });
      const other = await seed({ title: "Card elsewhere", tenantId: "keydiscovery" });
      expect((await get(`/newsletter/${draft.slug}/share-card`)).status).toBe(404);
      expect((await get(`/newsletter/${other.slug}/share-card`)).status).toBe(404);
    });

    it("describes the article for search engines as JSON-LD Article", async () => {
      const html = await (await get("/newsletter/with-a-cover")).text();
      const json = /<script type="application\/ld\+json">([^<]+)<\/script>/.exec(html)?.[1];
      const article = JSON.parse(json ?? "null");
      expect(article).toMatchObject({
        "@context": "https://schema.org",
        "@type": "Article",
        headline: "With a cover",
        // no byline set: the site is the author
        author: { "@type": "Organization", name: "KeyDiscovery" },
        publisher: { "@type": "Organization" },
      });
      expect(Date.parse(article.datePublished)).not.toBeNaN();
      expect(article.image[0]).toContain("/newsletter/with-a-cover/share-card?v=");
    });

    it("refuses a cover that is not this site's upload, or one without a description, changing nothing", async () => {
      const foreign = await upload(`${otherEditor}; herald_subdomain=keydiscovery`);
      const refused = await postForm(
        server.url,
        "/admin/newsletter/new",
        { ...FORM, title: "Foreign cover", coverImage: foreign, coverAlt: "x" },
        editor,
      );
      expect(refused.status).toBe(400);
      expect(textOf(await refused.text())).toContain("not among this site's uploads");
      const mine = await upload(editor);
      const undescribed = await postForm(
        server.url,
        "/admin/newsletter/new",
        { ...FORM, title: "Undescribed cover", coverImage: mine, coverAlt: " " },
        editor,
      );
      expect(undescribed.status).toBe(400);
      expect(textOf(await undescribed.text())).toContain("Describe the cover image");
      const made = await database.db
        .selectFrom("newsletters")
        .select("id")
        .where("tenant_id", "=", "main")
        .where("title", "in", ["Foreign cover", "Undescribed cover"])
        .execute();
      expect(made).toEqual([]);
    });
  });
});
