import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/migrate";
import { addComment } from "../../server/newsletters/comments";
import { createNewsletter, updateNewsletter } from "../../server/newsletters/editing";
import { getNewsletter } from "../../server/newsletters/listing";
import { publishNewsletter } from "../../server/newsletters/newsletters";
import { seedTenants } from "../../server/tenants/seed";
import { createStaffUser, signIn } from "../support/auth";
import { createTestDatabase, type TestDatabase } from "../support/database";
import { postForm } from "../support/forms";
import { type RunningServer, startServer } from "../support/server";

/*
 * Issue 17 (decision 022, fifth pass): the header, the footer, the empty sign-up and comment
 * forms, the staff tabs and the newsletter cards are rendered once and then put in as kept
 * markup. Whatever was kept, every document must be the one React renders — for each tenant,
 * page and visitor.
 * Rendering, not the database, is under test: SQLite only.
 */
describe("kept parts of pages", () => {
  let database: TestDatabase;
  let server: RunningServer;
  /** a published article of each tenant */
  const articles: Record<string, string> = {};
  let staff = "";

  beforeAll(async () => {
    database = await createTestDatabase("sqlite");
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    await createStaffUser(database.db, { email: "admin@example.com", role: "super_admin" });
    for (const tenantId of ["main", "keydiscovery"]) {
      const scope = { db: database.db, tenantId, authorId: null };
      const { id } = await createNewsletter(scope, {
        title: `Kept parts at ${tenantId}`,
        excerpt: "The same document, whatever was kept.",
        content: "<p>Review protocols.</p>",
      });
      await publishNewsletter(scope, id);
      await addComment(scope, { newsletterId: id, text: "A first comment." });
      articles[tenantId] = `/newsletter/${(await getNewsletter(scope, id))?.slug}`;
    }
    // Every page rendered: what staff, links with a query and first views get.
    server = await startServer({ databaseUrl: database.url, env: { PAGE_CACHE: "off" } });
    staff = await signIn(server.url, "admin@example.com");
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  /** The page's document, with what changes on every load (the nonce, the view count) masked. */
  async function page(path: string, headers: Record<string, string> = {}) {
    const response = await fetch(`${server.url}${path}`, { headers });
    const html = await response.text();
    return {
      status: response.status,
      html: html.replace(/nonce="[^"]*"/g, 'nonce=""').replace(/\d+ views?\b/g, "N views"),
    };
  }

  const keydiscovery = { cookie: "herald_subdomain=keydiscovery" };
  const article = () => articles.main as string;

  it("serves every public page of both tenants as React renders it, from the first load on", async () => {
    const paths = [
      "/",
      "/about",
      "/services",
      "/products",
      "/contact",
      "/privacy",
      "/newsletter",
      "/newsletter/subscribe",
      "/newsletter/search?q=review",
    ];
    for (const [tenantId, tenant] of [
      ["main", {}],
      ["keydiscovery", keydiscovery],
    ] as const) {
      for (const path of [...paths, articles[tenantId] as string]) {
        // The first load renders each part with React; the next ones put the kept markup in.
        const first = await page(path, tenant);
        expect(first.status, path).toBe(200);
        for (let load = 0; load < 2; load++) {
          expect((await page(path, tenant)).html, path).toBe(first.html);
        }
      }
    }
  });

  it("keeps each tenant's own bar and footer", async () => {
    const main = (await page("/about")).html;
    const other = (await page("/about", keydiscovery)).html;
    const name = (html: string) => html.match(/data-testid="header-company-name">([^<]*)</)?.[1];
    const footer = (html: string) => html.match(/data-testid="footer-company-name">([^<]*)</)?.[1];
    expect(name(main)).toBeTruthy();
    expect(name(other)).toBeTruthy();
    expect(name(main)).not.toBe(name(other));
    expect(footer(main)).toBe(name(main));
    expect(footer(other)).toBe(name(other));
  });

  it("marks the current page in the bar, page by page", async () => {
    for (const [path, current] of [
      ["/about", "About"],
      ["/services", "Services"],
      [article(), "Newsletter"],
      ["/", "Home"],
      ["/about", "About"],
    ] as const) {
      const marked = [
        ...(await page(path)).html.matchAll(/<a [^>]*aria-current="page"[^>]*>([^<]*)<\/a>/g),
      ].map((match) => match[1]);
      // The bar is in the page twice: the wide screen's list and the phone's menu.
      expect(marked, path).toEqual([current, current]);
    }
  });

  it("never shows a staff member's bar to a reader, nor a reader's to staff", async () => {
    for (let load = 0; load < 2; load++) {
      const reader = (await page(article())).html;
      const signedIn = (await page(article(), { cookie: staff })).html;
      expect(reader).toContain("Sign In");
      expect(reader).not.toContain("Sign Out");
      expect(signedIn).toContain("Sign Out");
      expect(signedIn).not.toContain(">Sign In<");
    }
  });

  it("shows staff each newsletter's card and tab as they are now", async () => {
    const scope = { db: database.db, tenantId: "main", authorId: null };
    const { id } = await createNewsletter(scope, {
      title: "A card before its edit",
      excerpt: "Cards are kept while nothing changes.",
      content: "<p>Draft.</p>",
    });
    const dashboard = async () => (await page("/admin/dashboard", { cookie: staff })).html;
    const first = await dashboard();
    expect(first).toContain("A card before its edit");
    expect(await dashboard()).toBe(first);
    await updateNewsletter(scope, id, {
      title: "A card after its edit",
      excerpt: "Cards are kept while nothing changes.",
      content: "<p>Draft.</p>",
    });
    const edited = await dashboard();
    expect(edited).toContain("A card after its edit");
    expect(edited).not.toContain("A card before its edit");
    // The staff tabs mark the page's own tab, whichever page kept them first.
    const tab = (html: string) =>
      html.match(/<nav aria-label="Staff".*?<a aria-current="page"[^>]*>([^<]*)</s)?.[1];
    expect(tab(edited)).toBe("Newsletters");
    expect(tab((await page("/admin/lists", { cookie: staff })).html)).toBe("Lists");
    expect(tab(await dashboard())).toBe("Newsletters");
  });

  it("shows what was submitted beside its errors, and the empty form to the next visitor", async () => {
    const empty = (await page("/newsletter/subscribe")).html;
    const answer = await postForm(
      server.url,
      "/newsletter/subscribe",
      { email: "not-an-email", name: "Ada", chooseLists: "1" },
      "",
    );
    const answered = await answer.text();
    expect(answer.status).toBe(400);
    expect(answered).toContain('value="not-an-email"');
    expect(answered).toContain('aria-invalid="true"');
    const after = (await page("/newsletter/subscribe")).html;
    expect(after).not.toContain("not-an-email");
    expect(after).toBe(empty);

    const reading = (await page(article())).html;
    const tooLong = "x".repeat(2_001);
    const refused = await postForm(server.url, article(), { text: tooLong }, "");
    const commented = await refused.text();
    expect(refused.status).toBe(400);
    expect(commented).toMatch(/<textarea[^>]*aria-invalid="true"/);
    expect(commented).toContain(tooLong);
    const next = (await page(article())).html;
    expect(next).not.toContain(tooLong);
    expect(next).toBe(reading);
  });

  it("keeps an article's render-only data out of its document, and hands it to a data request", async () => {
    // The document is rendered with the article's body and comments (app/lib/render-only.tsx)…
    const document = await page(articles.main as string);
    expect(document.html).toContain("<p>Review protocols.</p>");
    expect(document.html).toContain("A first comment.");
    expect(document.html).not.toContain("renderOnly");
    // …and a client navigation, rendered in the browser, gets them in the data itself.
    for (const headers of [{}, { cookie: staff }] as Record<string, string>[]) {
      const response = await fetch(`${server.url}${articles.main}.data`, { headers });
      expect(response.status).toBe(200);
      const data = await response.text();
      expect(data).toContain("<p>Review protocols.</p>");
      expect(data).toContain("A first comment.");
      expect(data).not.toContain("renderOnly");
    }
  });
});
