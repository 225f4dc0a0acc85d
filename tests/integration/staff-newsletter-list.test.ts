import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "../../server/db";
import { createNewsletter } from "../../server/newsletters/editing";
import { listNewsletters, STAFF_PAGE_SIZE } from "../../server/newsletters/listing";
import { publishNewsletter } from "../../server/newsletters/newsletters";
import { createStaffUser, signIn } from "../support/auth";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { type RunningServer, startServer } from "../support/server";

/** The dashboard pages through a tenant's newsletters instead of rendering them all (issue 17). */
describe.each(testDialects())("the staff newsletter list on %s", (dialect) => {
  let database: TestDatabase;
  let server: RunningServer;
  let db: Db;
  let cookie: string;
  const TOTAL = STAFF_PAGE_SIZE + 6;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    server = await startServer({ databaseUrl: database.url });
    db = createDb(database.url);
    for (let i = 1; i <= TOTAL; i++) {
      const newsletter = await createNewsletter(
        { db, tenantId: "main", authorId: null },
        { title: `Issue number ${i}`, excerpt: "An excerpt.", content: "<p>Body.</p>" },
      );
      if (i % 3 === 0) await publishNewsletter({ db, tenantId: "main" }, newsletter.id);
    }
    // Another tenant's newsletters are neither listed nor counted.
    for (let i = 1; i <= 3; i++) {
      await createNewsletter(
        { db, tenantId: "keydiscovery", authorId: null },
        { title: `Other tenant ${i}`, excerpt: "An excerpt.", content: "<p>Body.</p>" },
      );
    }
    await createStaffUser(db, { email: "lister@example.com", role: "super_admin" });
    cookie = await signIn(server.url, "lister@example.com");
  });

  afterAll(async () => {
    await db?.destroy();
    await server?.stop();
    await database?.drop();
  });

  const dashboard = async (query = "") => {
    const response = await fetch(`${server.url}/admin/dashboard${query}`, {
      headers: { cookie },
      redirect: "manual",
    });
    // React separates adjacent text with empty comments ("Page <!-- -->1"): read it without them.
    const html = response.status === 200 ? (await response.text()).replaceAll("<!-- -->", "") : "";
    return { response, html };
  };
  const cards = (html: string) => html.match(/<article\b/g)?.length ?? 0;

  it("pages the tenant's newsletters, newest change first, and counts them all", async () => {
    const first = await listNewsletters({ db, tenantId: "main" });
    expect(first.total).toBe(TOTAL);
    expect(first.items).toHaveLength(STAFF_PAGE_SIZE);
    const second = await listNewsletters({ db, tenantId: "main" }, {}, { page: 2, pageSize: 24 });
    expect(second.items).toHaveLength(TOTAL - STAFF_PAGE_SIZE);
    // Every newsletter once across the pages, each page newest change first.
    const all = [...first.items, ...second.items];
    expect(new Set(all.map((item) => item.id)).size).toBe(TOTAL);
    const changed = all.map((item) => item.updatedAt);
    expect(changed).toEqual([...changed].sort().reverse());
    const published = await listNewsletters({ db, tenantId: "main" }, { status: "published" });
    expect(published.total).toBe(TOTAL / 3);
  });

  it("shows one page of cards with links to the next, keeping the filters", async () => {
    const first = await dashboard();
    expect(first.response.status).toBe(200);
    expect(cards(first.html)).toBe(STAFF_PAGE_SIZE);
    expect(first.html).toContain("Page 1 of 2");
    expect(first.html).toContain('href="/admin/dashboard?page=2"');
    expect(first.html).not.toContain("Other tenant");

    const second = await dashboard("?page=2");
    expect(cards(second.html)).toBe(TOTAL - STAFF_PAGE_SIZE);
    expect(second.html).toContain("Page 2 of 2");
    expect(second.html).toContain('href="/admin/dashboard?page=1"');

    const filtered = await dashboard("?status=draft&q=issue");
    expect(cards(filtered.html)).toBe(STAFF_PAGE_SIZE - 4);
    expect(filtered.html).not.toContain("Page 1 of");
  });

  it("the content management page shows each tenant's latest page and says how many there are", async () => {
    const response = await fetch(`${server.url}/admin/cms`, { headers: { cookie } });
    expect(response.status).toBe(200);
    const html = (await response.text()).replaceAll("<!-- -->", "");
    expect(html).toContain(`Showing the latest ${STAFF_PAGE_SIZE} of ${TOTAL}.`);
    expect(html).toContain("Other tenant 3");
    expect(html).not.toContain("Showing the latest 3 of 3");
  });

  it("answers a page past the end with the last page, and a malformed page with the first", async () => {
    const past = await dashboard("?status=published&page=9");
    expect(past.response.status).toBe(302);
    expect(past.response.headers.get("location")).toBe("/admin/dashboard?status=published&page=1");
    for (const page of ["abc", "-3", "0", "1.5", "<script>"]) {
      const answer = await dashboard(`?page=${encodeURIComponent(page)}`);
      expect(answer.response.status).toBe(200);
      expect(answer.html).toContain("Page 1 of 2");
    }
  });
});
