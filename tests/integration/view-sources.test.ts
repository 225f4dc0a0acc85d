import { request as httpRequest } from "node:http";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCampaign } from "../../server/campaigns/campaigns";
import { createDb, type Db } from "../../server/db";
import { crossTenant } from "../../server/db/tenant-guard";
import { outboxTransport } from "../../server/mail/transport";
import { createNewsletter } from "../../server/newsletters/editing";
import { publishNewsletter } from "../../server/newsletters/newsletters";
import { getTenant } from "../../server/tenants/store";
import { createStaffUser, signIn } from "../support/auth";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { textOf } from "../support/html";
import { type RunningServer, startServer } from "../support/server";
import { scaled } from "../support/timing";

/**
 * Issue 36, target 3: views of a newsletter counted by source (email, LinkedIn, other sites by
 * host, direct) as the page is served, cached or not, without cookies or personal data, and shown
 * on the campaign report beside the opens and clicks.
 */
describe.each(testDialects())("where readers came from, on %s", (dialect) => {
  let database: TestDatabase;
  let server: RunningServer;
  let uncached: RunningServer;
  let db: Db;
  let cookie: string;
  let newsletterId: string;
  let campaignId: string;
  const slug = "where-readers-came-from";

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    server = await startServer({ databaseUrl: database.url });
    // The same site with the page cache off: the route counts the view instead of the host.
    uncached = await startServer({ databaseUrl: database.url, env: { PAGE_CACHE: "off" } });
    db = createDb(database.url);
    const ctx = { db, tenantId: "main" };
    const newsletter = await createNewsletter(
      { ...ctx, authorId: null },
      { title: "Where readers came from", excerpt: "Sources.", content: "<p>Body.</p>" },
    );
    newsletterId = newsletter.id;
    await publishNewsletter(ctx, newsletterId);
    const tenant = (await getTenant(db, "main")).config;
    const campaign = await createCampaign(
      {
        db,
        logger: pino({ level: "silent" }),
        transport: outboxTransport(),
        tenant,
        origin: server.url,
        sessionSecret: "s".repeat(40),
      },
      { subject: "Sources", content: "<p>Body.</p>", newsletterId, mode: "draft" },
      null,
    );
    campaignId = campaign.id;
    await createStaffUser(db, { email: "sources@example.com", role: "super_admin" });
    cookie = await signIn(server.url, "sources@example.com");
  }, scaled(60_000));

  afterAll(async () => {
    await db?.destroy();
    await server?.stop();
    await uncached?.stop();
    await database?.drop();
  });

  /** A reader's GET, with the Referer a browser would send (fetch() does not send one). */
  const read = (base: RunningServer, query: string, referer: string | null) =>
    new Promise<{ status: number; cache: string | undefined; cookie: unknown }>(
      (resolve, reject) => {
        const headers: Record<string, string> = {};
        if (referer) headers.referer = referer;
        const req = httpRequest(
          { host: "127.0.0.1", port: base.port, path: `/newsletter/${slug}${query}`, headers },
          (res) => {
            res.resume();
            res.on("end", () =>
              resolve({
                status: res.statusCode ?? 0,
                cache: res.headers["x-page-cache"] as string | undefined,
                cookie: res.headers["set-cookie"],
              }),
            );
          },
        );
        req.on("error", reject);
        req.end();
      },
    );

  const rows = () =>
    crossTenant(db)
      .selectFrom("newsletter_view_sources")
      .select(["tenant_id", "newsletter_id", "day", "source", "host", "views"])
      .orderBy("source")
      .orderBy("host")
      .execute();

  /** The counts are written in batches (about a second): wait until `views` are in. */
  async function waitForViews(views: number) {
    const deadline = Date.now() + scaled(10_000);
    for (;;) {
      const total = (await rows()).reduce((sum, row) => sum + Number(row.views), 0);
      if (total >= views || Date.now() > deadline) return total;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it("counts each view under one source, cached page or not, and keeps no reader", async () => {
    const views: [RunningServer, string, string | null][] = [
      [server, "?utm_source=linkedin&utm_medium=social&utm_campaign=x", null],
      [server, "", "https://www.linkedin.com/feed/"],
      [uncached, "", "https://lnkd.in/abc123"],
      [server, "?utm_source=email&utm_medium=email", null],
      [uncached, "?utm_source=email&utm_medium=email", null],
      [server, "", "https://news.ycombinator.com/item?id=12345"],
      [uncached, "", "https://news.ycombinator.com/item?id=99"],
      [server, "", "https://www.google.com/search?q=private+words"],
      [server, "", `http://127.0.0.1:${server.port}/newsletter`],
      [server, "", null],
      [uncached, "", null],
    ];
    for (const [base, query, referer] of views) {
      const answer = await read(base, query, referer);
      expect(answer.status).toBe(200);
      // No cookie is set to follow a reader.
      expect(answer.cookie).toBeUndefined();
    }
    expect(await waitForViews(views.length)).toBe(views.length);
    const today = new Date().toISOString().slice(0, 10);
    const found = (await rows()).map((row) => [row.source, row.host, Number(row.views)]);
    expect(found).toEqual([
      ["direct", "", 2],
      ["email", "", 2],
      ["internal", "", 1],
      ["linkedin", "", 3],
      ["other", "google.com", 1],
      ["other", "news.ycombinator.com", 2],
    ]);
    for (const row of await rows()) {
      expect(row).toMatchObject({ tenant_id: "main", newsletter_id: newsletterId, day: today });
    }
    // Only hosts: no path or query of a referrer is stored anywhere.
    expect(JSON.stringify(await rows())).not.toMatch(/private|item|12345|feed/);
  });

  it("serves a tagged address from the page cache (the tags are not part of the page)", async () => {
    await read(server, "?utm_source=linkedin&utm_campaign=a", null);
    const again = await read(server, "?utm_source=linkedin&utm_campaign=b", null);
    expect(again.cache).toBe("hit");
  });

  it("shows the sources on the campaign report beside the opens and clicks", async () => {
    const total = await waitForViews(13);
    const response = await fetch(`${server.url}/admin/campaigns/${campaignId}`, {
      headers: { cookie },
    });
    expect(response.status).toBe(200);
    const text = textOf(await response.text());
    expect(text).toContain("Unique opens");
    expect(text).toContain("Where readers came from");
    expect(text).toContain(`Views of the newsletter's page by source, ${total} in all.`);
    expect(text).toMatch(/LinkedIn\s*5\s*38%/);
    expect(text).toMatch(/Email\s*2\s*15%/);
    expect(text).toMatch(/news\.ycombinator\.com\s*2/);
  });
});
