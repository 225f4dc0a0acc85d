import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { publishNewsletter } from "../../server/newsletters/newsletters";
import { listTenantLists } from "../../server/subscribers/lists";
import { seedTenants } from "../../server/tenants/seed";
import { getTenant } from "../../server/tenants/store";
import { createStaffUser, signIn } from "../support/auth";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { postForm, sendAsEmail } from "../support/forms";
import { type RunningServer, startServer } from "../support/server";
import { type ReceivedMail, type SmtpSink, startSmtpSink } from "../support/smtp-sink";
import { insertSubscriber } from "../support/subscribers";

/*
 * Issue 35, target 2: the editor's blocks from the form to the page and into the inbox. A
 * newsletter with every block (and a few unsafe attributes) is saved through the admin form,
 * published, read on its page, and sent as a campaign through a real SMTP server on loopback.
 */

const BLOCKS = [
  "<p>Opening words.</p>",
  '<div data-block="button" onclick="steal()"><a href="https://example.com/join" onmouseover="x()">Join the club</a></div>',
  "<hr>",
  '<div data-block="callout" data-tone="success" data-icon="🎉" style="position:fixed"><p>We turned <strong>ten</strong>.</p></div>',
  '<figure><img src="https://cdn.example.com/team.png" alt="The team on the roof" width="1000" height="500"><figcaption>All of us, in May</figcaption></figure>',
  '<div data-block="bookmark"><a href="https://example.org/essay"><img data-part="image" src="https://example.org/essay.png" alt=""><span data-part="title">The long essay</span><span data-part="description">Worth an evening</span><span data-part="site">example.org</span></a></div>',
  '<div data-block="embed" data-provider="youtube"><a href="https://www.youtube.com/watch?v=dQw4w9WgXcQ"><img data-part="image" src="https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg" alt=""><span data-part="title">Our birthday talk</span><span data-part="site">Watch on YouTube</span></a></div>',
  '<div data-block="web-only"><p>Leave a comment below.</p></div>',
  '<div data-block="email-only"><p>Just reply to this mail.</p><div data-block="button"><a href="https://example.com/reply">Write back</a></div></div>',
  '<div data-block="embed" data-provider="x"><a href="javascript:alert(1)"><span data-part="title">Bad link</span></a></div>',
].join("");

const OG_PAGE = `<!doctype html><html><head><title>Fallback</title>
<meta property="og:title" content="A page worth a card">
<meta property="og:description" content="Read it with coffee.">
<meta property="og:image" content="/card.png"></head><body></body></html>`;

describe.each(testDialects())("the editor's blocks on %s", (dialect) => {
  let database: TestDatabase;
  let sink: SmtpSink;
  let server: RunningServer;
  let pages: Server;
  let pagesUrl = "";
  let cookie = "";
  let newsletterId = "";
  let stored = "";
  let campaignMail: ReceivedMail;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    sink = await startSmtpSink();
    pages = createServer((request, response) => {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(request.url === "/post" ? OG_PAGE : "<title>Other</title>");
    });
    await new Promise<void>((resolve) => pages.listen(0, "127.0.0.1", resolve));
    pagesUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
    server = await startServer({
      databaseUrl: database.url,
      // The page server is on loopback: allowed here on purpose, refused by default.
      env: { SMTP_URL: sink.url, SEND_RATE: "0", IMPORT_ALLOW_PRIVATE_HOSTS: "true" },
    });
    const staff = await createStaffUser(database.db, {
      email: "chief@example.com",
      role: "super_admin",
    });
    cookie = await signIn(server.url, staff.email);
    const tenant = (await getTenant(database.db, "main")).config;
    const list = (await listTenantLists(database.db, tenant)).find(
      (each) => each.key === "newsletter",
    );
    await insertSubscriber(database.db, {
      email: "reader@example.com",
      status: "active",
      listIds: [list?.id ?? 0],
    });

    const saved = await postForm(
      server.url,
      "/admin/newsletter/new",
      {
        title: "Ten years of us",
        excerpt: "A birthday issue with every kind of block.",
        content: BLOCKS,
        readTime: "3",
        intent: "save",
      },
      cookie,
    );
    expect(saved.status).toBe(302);
    newsletterId = /\/admin\/newsletter\/edit\/([0-9a-f-]{36})/.exec(
      saved.headers.get("location") ?? "",
    )?.[1] as string;
    expect(newsletterId).toBeTruthy();
    const row = await crossTenant(database.db)
      .selectFrom("newsletters")
      .select("content")
      .where("id", "=", newsletterId)
      .executeTakeFirstOrThrow();
    stored = row.content;
    await publishNewsletter({ db: database.db, tenantId: "main" }, newsletterId);

    const sent = await sendAsEmail(
      server.url,
      `/admin/newsletter/send/${newsletterId}`,
      {
        subject: "Ten years of us",
        lists: ["newsletter"],
        trackOpens: "on",
        trackClicks: "on",
        mode: "now",
      },
      cookie,
    );
    expect(sent.status).toBe(303);
    campaignMail = await sink.waitFor((mail) => mail.to.includes("reader@example.com"), 20_000);
  });

  afterAll(async () => {
    await server?.stop();
    await sink?.stop();
    await new Promise<void>((resolve) => (pages ? pages.close(() => resolve()) : resolve()));
    await database?.drop();
  });

  it("stores every block and none of the unsafe attributes", () => {
    for (const kind of ["button", "callout", "bookmark", "embed", "web-only", "email-only"]) {
      expect(stored).toContain(`data-block="${kind}"`);
    }
    expect(stored).toContain('data-tone="success" data-icon="🎉"');
    expect(stored).toContain("<figcaption>All of us, in May</figcaption>");
    expect(stored).not.toMatch(/onclick|onmouseover|javascript:|position:fixed|style=/);
  });

  it("shows the blocks on the page, without the email-only section", async () => {
    const response = await fetch(`${server.url}/newsletter/${newsletterId}`);
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toMatch(
      /<div data-block="button"><a href="https:\/\/example.com\/join"[^>]*>Join the club<\/a><\/div>/,
    );
    expect(page).toContain('<div data-block="callout" data-tone="success" data-icon="🎉">');
    expect(page).toContain("<figcaption>All of us, in May</figcaption>");
    expect(page).toContain('<span data-part="title">The long essay</span>');
    expect(page).toContain('data-provider="youtube"');
    expect(page).toContain("Leave a comment below.");
    expect(page).not.toContain("Just reply to this mail.");
    expect(page).not.toContain("Write back");
    expect(page).not.toMatch(/<iframe|youtube\.com\/embed/);
  });

  it("sends the blocks as tables, without the web-only section", () => {
    const html = campaignMail.html;
    // The button: a table cell with the colour, its link tracked.
    expect(html).toMatch(
      /<td align="center" bgcolor="#[0-9a-f]{6}"[^>]*><a href="[^"]*\/t\/c\/[^"]+"[^>]*>Join the club<\/a><\/td>/,
    );
    expect(html).toMatch(/<td bgcolor="#e7f6ec"[^>]*>/);
    expect(html).toContain("🎉</span>&nbsp;We turned <strong>ten</strong>.");
    expect(html).toMatch(
      /<img src="https:\/\/cdn.example.com\/team.png" alt="The team on the roof" width="536" height="268"/,
    );
    expect(html).toContain("All of us, in May</figcaption>");
    expect(html).toMatch(/>The long essay<\/a>/);
    expect(html).toContain("Worth an evening");
    expect(html).toMatch(
      /<img src="https:\/\/i.ytimg.com\/vi\/dQw4w9WgXcQ\/hqdefault.jpg" alt="Our birthday talk"/,
    );
    expect(html).toContain("▶ Watch on YouTube</a>");
    expect(html).toContain("Just reply to this mail.");
    expect(html).toMatch(/>Write back<\/a><\/td>/);
    expect(html).not.toContain("Leave a comment below.");
    expect(html).not.toMatch(/data-block|<iframe|javascript:|display:\s*(flex|grid)/);
  });

  it("writes the blocks into the text part", () => {
    const text = campaignMail.text;
    expect(text).toMatch(/Join the club \(http[^)]+\)/);
    expect(text).toMatch(/🎉\s+We turned ten\./);
    expect(text).toContain("All of us, in May");
    expect(text).toMatch(/The long essay \(http[^)]+\)\s+Worth an evening/);
    expect(text).toMatch(/▶ Watch on YouTube \(http[^)]+\)\s+Our birthday talk/);
    expect(text).toContain("Just reply to this mail.");
    expect(text).not.toContain("Leave a comment below.");
  });

  describe("link previews for bookmark cards", () => {
    const preview = (fields: Record<string, string>, withCookie = cookie) =>
      postForm(server.url, "/admin/link-preview", fields, withCookie);

    it("answers a page's Open Graph title, description and image", async () => {
      const response = await preview({ url: `${pagesUrl}/post` });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        title: "A page worth a card",
        description: "Read it with coffee.",
        image: `${pagesUrl}/card.png`,
      });
    });

    it("refuses other schemes and bad requests, and anonymous callers", async () => {
      const file = await preview({ url: "file:///etc/passwd" });
      expect(file.status).toBe(422);
      expect(((await file.json()) as { error: string }).error).toMatch(/http and https/);
      expect((await preview({ address: "x" })).status).toBe(400);
      expect((await preview({ url: "x".repeat(3000) })).status).toBe(400);
      const json = await fetch(`${server.url}/admin/link-preview`, {
        method: "POST",
        headers: { cookie, origin: server.url, "content-type": "application/json" },
        body: JSON.stringify({ url: `${pagesUrl}/post` }),
      });
      expect(json.status).toBe(415);
      const anonymous = await preview({ url: `${pagesUrl}/post` }, "");
      expect([302, 401, 403]).toContain(anonymous.status);
    });

    it("stops a staff member who asks for more than 60 in 10 minutes, and only them", async () => {
      // Refused addresses count too: each is a fetch the server was asked to make.
      const statuses: number[] = [];
      for (let asked = 0; asked < 61; asked++) {
        statuses.push((await preview({ url: "ftp://example.com/x" })).status);
      }
      const firstRefusal = statuses.indexOf(429);
      expect(firstRefusal).toBeGreaterThan(50); // the tests above asked for a few already
      expect(statuses.slice(0, firstRefusal).every((status) => status === 422)).toBe(true);
      const limited = await preview({ url: `${pagesUrl}/post` });
      expect(limited.status).toBe(429);
      expect(((await limited.json()) as { error: string }).error).toMatch(/Too many link previews/);
      const other = await createStaffUser(database.db, {
        email: "second@example.com",
        role: "super_admin",
      });
      const otherCookie = await signIn(server.url, other.email);
      expect((await preview({ url: `${pagesUrl}/post` }, otherCookie)).status).toBe(200);
    });
  });
});
