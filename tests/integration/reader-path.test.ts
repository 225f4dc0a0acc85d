import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setDisplayName } from "../../server/auth/users";
import { migrateToLatest } from "../../server/db/migrate";
import { createNewsletter, updateNewsletter } from "../../server/newsletters/editing";
import { SLUG_TAKEN } from "../../server/newsletters/errors";
import { publishNewsletter } from "../../server/newsletters/newsletters";
import { seedTenants } from "../../server/tenants/seed";
import { createStaffUser } from "../support/auth";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { textOf } from "../support/html";
import { type RunningServer, startServer } from "../support/server";

/*
 * Issue 15, part 6: the reader's way to the newsletter — in every tenant's main navigation, at
 * /newsletters too, with a sign-up box after every article and beside the archive, and the
 * writer's byline.
 */
describe.each(testDialects())("the reader's path on %s", (dialect) => {
  let database: TestDatabase;
  let server: RunningServer;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    const writer = await createStaffUser(database.db, {
      email: "w@example.com",
      role: "super_admin",
    });
    await setDisplayName(database.db, writer.id, "  Dana Whitfield, Head of eDiscovery ");
    for (const [key, authorId] of [
      ["signed", writer.id],
      ["unsigned", null],
    ] as const) {
      const scope = { db: database.db, tenantId: "main", authorId };
      const { id } = await createNewsletter(scope, {
        title: `The ${key} issue`,
        excerpt: "Defensible review in practice.",
        content: "<p>Practical notes.</p>",
      });
      await publishNewsletter(scope, id);
      ids[key] = id;
    }
    server = await startServer({ databaseUrl: database.url });
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  const html = async (path: string) => (await fetch(`${server.url}${path}`)).text();

  it("puts Newsletter in the main navigation of every tenant", async () => {
    for (const path of ["/", "/about?subdomain=keydiscovery", `/newsletter/${ids.signed}`]) {
      const nav = (await html(path)).match(/<nav aria-label="Main"[^>]*>.*?<\/nav>/s)?.[0] ?? "";
      expect(nav, path).toMatch(/<a[^>]*href="\/newsletter"[^>]*>Newsletter<\/a>/);
    }
  });

  it("sends /newsletters to the archive for good", async () => {
    const response = await fetch(`${server.url}/newsletters`, { redirect: "manual" });
    expect(response.status).toBe(301);
    expect(response.headers.get("location")).toBe("/newsletter");
  });

  it("ends every article with the sign-up form, and keeps one beside the archive", async () => {
    for (const path of [`/newsletter/${ids.signed}`, "/newsletter"]) {
      const page = await html(path);
      expect(page, path).toMatch(/<aside aria-labelledby="subscribe-heading"/);
      expect(page, path).toMatch(/<form[^>]*action="\/newsletter\/subscribe"/);
    }
    expect(textOf(await html(`/newsletter/${ids.signed}`))).toContain(
      "Get the next issue by email",
    );
  });

  it("signs an article with its writer's name, and an unsigned one with none", async () => {
    const signed = await html(`/newsletter/${ids.signed}`);
    expect(signed).toMatch(/data-testid="byline"[^>]*>By Dana Whitfield, Head of eDiscovery</);
    expect(await html(`/newsletter/${ids.unsigned}`)).not.toContain('data-testid="byline"');
  });

  it("gives every article a readable address; its id and its old addresses answer 301", async () => {
    const slug = "the-signed-issue";
    expect(await html(`/newsletter/${slug}`)).toContain("The signed issue");
    const byId = await fetch(`${server.url}/newsletter/${ids.signed}`, { redirect: "manual" });
    expect(byId.status).toBe(301);
    expect(byId.headers.get("location")).toBe(`/newsletter/${slug}`);
    // A newsletter titled the same gets the next free address.
    const scope = { db: database.db, tenantId: "main", authorId: null };
    const twin = await createNewsletter(scope, {
      title: "The signed issue",
      excerpt: "Again.",
      content: "<p>Again.</p>",
    });
    expect(twin.slug).toBe("the-signed-issue-2");
    // The writer renames the address: the old one keeps working, and nobody else can take it.
    await updateNewsletter(scope, ids.signed, {
      title: "The signed issue",
      excerpt: "Defensible review in practice.",
      content: "<p>Practical notes.</p>",
      slug: "defensible-review",
    });
    const old = await fetch(`${server.url}/newsletter/${slug}`, { redirect: "manual" });
    expect(old.status).toBe(301);
    expect(old.headers.get("location")).toBe("/newsletter/defensible-review");
    await expect(
      updateNewsletter(scope, twin.id, {
        title: "x",
        excerpt: "x",
        content: "<p>x</p>",
        slug,
      }),
    ).rejects.toThrow(SLUG_TAKEN);
    const sitemap = await html("/sitemap.xml");
    expect(sitemap).toContain("/newsletter/defensible-review</loc>");
    expect(sitemap).not.toContain(ids.signed);
    const rss = await html("/newsletter/rss.xml");
    expect(rss).toContain("/newsletter/defensible-review</link>");
    const page = await html("/newsletter/defensible-review");
    expect(page).toContain('<link rel="canonical" href="http://localhost');
    expect(page).toContain('/newsletter/defensible-review"/>');
    // Unknown addresses are still 404; reserved words are never a newsletter's.
    expect((await fetch(`${server.url}/newsletter/no-such-issue`)).status).toBe(404);
  });

  it("counts the read time of a newsletter given none", async () => {
    expect(textOf(await html(`/newsletter/${ids.signed}`))).toContain("1 min read");
  });
});
