import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest, migratorFor } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { createNewsletter, updateNewsletter } from "../../server/newsletters/editing";
import {
  deleteNewsletter,
  publishNewsletter,
  unpublishNewsletter,
} from "../../server/newsletters/newsletters";
import { makeSnippet, searchNewsletters } from "../../server/newsletters/search";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { type RunningServer, startServer } from "../support/server";

/** Issue 15, part 3: one search contract on SQLite FTS5 and PostgreSQL full-text search. */

describe.each(testDialects())("newsletter search on %s", (dialect) => {
  let database: TestDatabase;
  let server: RunningServer;
  const main = () => ({ db: database.db, tenantId: "main" });
  const ids: Record<string, string> = {};

  async function publish(
    key: string,
    input: { title: string; excerpt: string; content: string },
    tenantId = "main",
  ) {
    const ctx = { db: database.db, tenantId };
    const newsletter = await createNewsletter({ ...ctx, authorId: null }, input);
    await publishNewsletter(ctx, newsletter.id);
    ids[key] = newsletter.id;
    return newsletter;
  }

  const titles = async (query: string) =>
    (await searchNewsletters(main(), query, { page: 1, pageSize: 10 })).items.map(
      (item) => item.title,
    );

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    server = await startServer({ databaseUrl: database.url });
    // Oldest first: ties within a tier come newest first.
    await publish("body", {
      title: "Weekly notes",
      excerpt: "What happened.",
      content:
        "<p>Courts keep accepting <strong>technology-assisted</strong> reviews of email.</p>",
    });
    await publish("excerpt", {
      title: "Another week",
      excerpt: "A review of the sampling protocol.",
      content: "<p>Sampling, again, &amp; again.</p>",
    });
    await publish("title", {
      title: "Review protocols that hold up",
      excerpt: "Defensibility first.",
      content: "<p>Nothing else here.</p>",
    });
    await publish(
      "other-tenant",
      {
        title: "Review elsewhere",
        excerpt: "Another site's review.",
        content: "<p>Review review.</p>",
      },
      "keydiscovery",
    );
    const draft = await createNewsletter(
      { ...main(), authorId: null },
      { title: "Draft review", excerpt: "Not out.", content: "<p>review</p>" },
    );
    ids.draft = draft.id;
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it("finds every stemmed form: title matches first, then the rest, newest first", async () => {
    expect(await titles("reviewing")).toEqual([
      "Review protocols that hold up",
      "Another week",
      "Weekly notes",
    ]);
    expect(await titles("REVIEWS")).toEqual(await titles("review"));
  });

  it("requires every word, and finds nothing for words no newsletter has", async () => {
    expect(await titles("review sampling")).toEqual(["Another week"]);
    expect(await titles("review zebra")).toEqual([]);
    expect(await titles("   ")).toEqual([]);
  });

  it("marks the matched words in a snippet of the text", async () => {
    const { items, total } = await searchNewsletters(main(), "technology courts", {
      page: 1,
      pageSize: 10,
    });
    expect(total).toBe(1);
    const snippet = items[0]?.snippet ?? [];
    expect(
      snippet.filter((part) => part.highlighted).map((part) => part.text.toLowerCase()),
    ).toEqual(["courts", "technology-assisted"]);
    expect(snippet.map((part) => part.text).join("")).toContain("keep accepting");
    expect(items[0]).toMatchObject({ title: "Weekly notes", slug: "weekly-notes", readTime: 1 });
  });

  it.each([
    ['"review'],
    ["review*"],
    ["NEAR(review protocol)"],
    ["review OR zebra"],
    ["-review"],
    ["title:review"],
    ["'; drop table newsletters; --"],
    ["<script>alert(1)</script>"],
    ["(((("],
    ["review & !protocol | :*"],
  ])("treats %s as words, never as syntax", async (query) => {
    await expect(
      searchNewsletters(main(), query, { page: 1, pageSize: 10 }),
    ).resolves.toBeDefined();
    const rows = await database.db
      .selectFrom("newsletters")
      .select("id")
      .where("tenant_id", "=", "main")
      .execute();
    expect(rows.length).toBeGreaterThan(0);
  });

  it("never finds drafts or another site's newsletters", async () => {
    expect(await titles("draft")).toEqual([]);
    expect(await titles("elsewhere")).toEqual([]);
    const other = await searchNewsletters({ db: database.db, tenantId: "keydiscovery" }, "review", {
      page: 1,
      pageSize: 10,
    });
    expect(other.items.map((item) => item.title)).toEqual(["Review elsewhere"]);
  });

  it("keeps the index in step with every update, unpublish, publish and delete", async () => {
    const { id } = await publish("changing", {
      title: "Retention schedules",
      excerpt: "Keep less.",
      content: "<p>Custodians and retention.</p>",
    });
    expect(await titles("custodians")).toEqual(["Retention schedules"]);
    await updateNewsletter(main(), id, {
      title: "Retention schedules",
      excerpt: "Keep less.",
      content: "<p>Subpoenas, not people.</p>",
    });
    expect(await titles("custodians")).toEqual([]);
    expect(await titles("subpoena")).toEqual(["Retention schedules"]);
    await unpublishNewsletter(main(), id);
    expect(await titles("subpoena")).toEqual([]);
    await publishNewsletter(main(), id);
    expect(await titles("subpoena")).toEqual(["Retention schedules"]);
    await deleteNewsletter(main(), id);
    expect(await titles("subpoena")).toEqual([]);
    const left = await database.db
      .selectFrom("newsletter_search")
      .select("newsletter_id")
      .where("tenant_id", "=", "main")
      .where("newsletter_id", "=", id)
      .execute();
    expect(left).toEqual([]);
  });

  it("pages through many results, ten at a time, with the total", async () => {
    for (let n = 0; n < 12; n++) {
      await publish(`many-${n}`, {
        title: `Zettabyte issue ${n}`,
        excerpt: "Data volumes.",
        content: "<p>Zettabytes of chat data.</p>",
      });
    }
    const first = await searchNewsletters(main(), "zettabyte", { page: 1, pageSize: 10 });
    const second = await searchNewsletters(main(), "zettabyte", { page: 2, pageSize: 10 });
    expect(first.total).toBe(12);
    expect(first.items).toHaveLength(10);
    expect(second.items).toHaveLength(2);
    expect(new Set([...first.items, ...second.items].map((item) => item.id)).size).toBe(12);
  });

  it("serves the results page with marked words, the query escaped, and a search box on the archive", async () => {
    const archive = await (await fetch(`${server.url}/newsletter`)).text();
    expect(archive).toMatch(
      /<form[^>]*action="\/newsletter\/search"[^>]*role="search"|role="search"[^>]*action="\/newsletter\/search"/,
    );
    const response = await fetch(`${server.url}/newsletter/search?q=technology`);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toMatch(/<mark[^>]*>technology-assisted<\/mark>/i);
    expect(html).toContain("1 result for “technology”");
    expect(html).toContain('href="/newsletter/weekly-notes"');
    expect(html).toContain('name="robots" content="noindex"');
    const hostile = await (
      await fetch(
        `${server.url}/newsletter/search?q=${encodeURIComponent("<script>alert(1)</script>")}`,
      )
    ).text();
    expect(hostile).not.toContain("<script>alert(1)</script>");
    expect(hostile).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
  });

  it("indexes the newsletters published before search existed (migration 0022)", async () => {
    const fresh = await createTestDatabase(dialect);
    try {
      expect(
        (await migratorFor(fresh.db).migrateTo("0021_newsletter_publishing")).error,
      ).toBeUndefined();
      const now = new Date().toISOString();
      await sql`insert into tenants (id, name, config, created_at, updated_at)
        values ('old', 'Old', '{}', ${now}, ${now})`.execute(crossTenant(fresh.db));
      await sql`insert into newsletters (id, tenant_id, title, excerpt, content, read_time, status,
          created_at, updated_at, published_at, slug)
        values ('00000000-0000-4000-8000-000000000001', 'old', 'Before search', 'Old news.',
          '<p>Proportionality &amp; sampling</p>', 1, 'published', ${now}, ${now}, ${now}, 'before-search'),
          ('00000000-0000-4000-8000-000000000002', 'old', 'Old draft', 'Draft.',
          '<p>Proportionality</p>', 1, 'draft', ${now}, ${now}, null, 'old-draft')`.execute(
        crossTenant(fresh.db),
      );
      await migrateToLatest(fresh.db);
      const found = await searchNewsletters({ db: fresh.db, tenantId: "old" }, "proportionality", {
        page: 1,
        pageSize: 10,
      });
      expect(found.items.map((item) => item.title)).toEqual(["Before search"]);
    } finally {
      await fresh.drop();
    }
  });
});

describe("snippets", () => {
  it("marks the words found, stemmed, in the passage with the most of them", () => {
    const text = `${"Filler words here. ".repeat(20)}Reviewers reviewed the review protocol. ${"More filler. ".repeat(20)}`;
    const parts = makeSnippet(text, ["review"]);
    expect(parts.filter((part) => part.highlighted).map((part) => part.text)).toEqual([
      "Reviewers",
      "reviewed",
      "review",
    ]);
    expect(parts[0]?.text.startsWith("… ")).toBe(true);
    expect(parts.at(-1)?.text.endsWith(" …")).toBe(true);
    expect(
      parts
        .map((part) => part.text)
        .join("")
        .split(" ").length,
    ).toBeLessThanOrEqual(33);
  });

  it("keeps markup-looking text as text", () => {
    const parts = makeSnippet("<b>review</b> & <script>", ["review"]);
    expect(parts.map((part) => part.text).join("")).toBe("<b>review</b> & <script>");
    expect(makeSnippet("", ["review"])).toEqual([]);
  });
});
