import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { createNewsletter } from "../../server/newsletters/editing";
import { publishNewsletter } from "../../server/newsletters/newsletters";
import { saveTenantSettings } from "../../server/tenants/admin";
import { seedTenants } from "../../server/tenants/seed";
import { getTenant } from "../../server/tenants/store";
import { settingsOf } from "../../server/tenants/views";
import { createStaffUser, signIn } from "../support/auth";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { postForm, sendAsEmail } from "../support/forms";
import { uploadTestPng } from "../support/images";
import { type RunningServer, startServer } from "../support/server";
import { type ReceivedMail, type SmtpSink, startSmtpSink } from "../support/smtp-sink";
import { insertListSubscriber } from "../support/subscribers";

/*
 * Issue 35, target 3: the email as good as the page. A newsletter with a cover, an author and an
 * image in its content is published and sent through a real SMTP server on loopback; the mail
 * carries the tenant's logo, the cover, the page's byline (dated in the tenant's time zone) and,
 * in its text part, the images' alt texts. A sign-up then gets the default welcome, which links
 * that newsletter.
 */

/** The tenant's logo: a path on its site, made absolute on its origin in the mail. */
const LOGO = "/brand/main-street-logo.png";

describe.each(testDialects())("the campaign email and the default welcome on %s", (dialect) => {
  let database: TestDatabase;
  let sink: SmtpSink;
  let server: RunningServer;
  let uploadsDir: string;
  let cookie = "";
  let cover = "";
  let mail: ReceivedMail;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    sink = await startSmtpSink();
    const main = settingsOf((await getTenant(database.db, "main")).config);
    await saveTenantSettings(database.db, "test", "main", {
      ...main,
      description: "Short notes on review technology, every other Tuesday.",
      branding: { ...main.branding, logoUrl: LOGO, companyName: "Main Street Review" },
      features: { ...main.features, doubleOptIn: false },
      // Late evening UTC is the next day in Tokyo: the byline must say the tenant's date.
      timeZone: "Asia/Tokyo",
    });
    uploadsDir = mkdtempSync(join(tmpdir(), "herald-uploads-"));
    server = await startServer({
      databaseUrl: database.url,
      env: { SMTP_URL: sink.url, SEND_RATE: "0", UPLOADS_DIR: uploadsDir },
    });
    const staff = await createStaffUser(database.db, {
      email: "chief@example.com",
      role: "super_admin",
    });
    await crossTenant(database.db)
      .updateTable("users")
      .set({ display_name: "Ann Lee" })
      .where("id", "=", staff.id)
      .execute();
    cookie = await signIn(server.url, staff.email);
    cover = await uploadTestPng(server.url, cookie, 1600, 900);

    await insertListSubscriber(database.db, { email: "reader@example.com" });

    const saved = await postForm(
      server.url,
      "/admin/newsletter/new",
      {
        title: "Review in the age of AI",
        excerpt: "What changed this quarter.",
        content:
          '<p>Opening words.</p><p><img src="https://cdn.example.com/chart.png" alt="Filings per month, up 12%"></p><p><img src="https://cdn.example.com/spacer.png" alt=""></p><p>Closing words.</p>',
        readTime: "4",
        slug: "",
        coverImage: cover,
        coverAlt: "A courtroom at dawn",
        intent: "publish",
      },
      cookie,
    );
    expect(saved.status).toBe(302);
    const row = await crossTenant(database.db)
      .selectFrom("newsletters")
      .select(["id", "slug"])
      .where("tenant_id", "=", "main")
      .where("title", "=", "Review in the age of AI")
      .executeTakeFirstOrThrow();
    await crossTenant(database.db)
      .updateTable("newsletters")
      .set({ published_at: "2026-11-21T22:30:00.000Z" })
      .where("id", "=", row.id)
      .execute();

    const sent = await sendAsEmail(
      server.url,
      `/admin/newsletter/send/${row.id}`,
      {
        subject: "Review in the age of AI",
        lists: ["newsletter"],
        trackOpens: "on",
        trackClicks: "on",
        mode: "now",
      },
      cookie,
    );
    expect(sent.status).toBe(303);
    mail = await sink.waitFor((each) => each.to.includes("reader@example.com"), 20_000);
  });

  afterAll(async () => {
    await server?.stop();
    await sink?.stop();
    await database?.drop();
    if (uploadsDir) rmSync(uploadsDir, { recursive: true, force: true });
  });

  const imgWithAlt = (html: string, alt: string) =>
    new RegExp(`<img[^>]*alt="${alt}"[^>]*>`).exec(html)?.[0] ?? "";

  it("carries the tenant's logo as an absolute URL on its origin, beside its name", () => {
    const img = imgWithAlt(mail.html, "Main Street Review");
    expect(img).toMatch(new RegExp(`src="https?://[^"/]+${LOGO}"`));
    expect(mail.html).toContain(">Main Street Review</p>");
  });

  it("shows the cover at the mail's width with its alt text, and the page's byline", () => {
    const img = imgWithAlt(mail.html, "A courtroom at dawn");
    expect(img).toMatch(new RegExp(`src="https?://[^"/]+${cover}"`));
    expect(img).toContain('width="600"');
    expect(img).toContain('height="338"');
    expect(mail.html).toContain("By Ann Lee · November 22, 2026 · 4 min read");
    expect(mail.html.indexOf("A courtroom at dawn")).toBeLessThan(
      mail.html.indexOf("Opening words."),
    );
  });

  it("keeps images as their alt text in the text part, and leaves out one without", () => {
    expect(mail.text).toContain("By Ann Lee · November 22, 2026 · 4 min read");
    expect(mail.text).toContain("[Image: A courtroom at dawn]");
    expect(mail.text).toMatch(
      /Opening words\.\s+\[Image: Filings per month, up 12%\]\s+Closing words\./,
    );
    expect(mail.text).not.toContain("[Image: ]");
    expect(mail.text).not.toContain("[Image: Main Street Review]");
  });

  it("welcomes a new subscriber by the tenant's name, with what to expect and the latest issue", async () => {
    // Two older issues, a week apart each: the welcome can say how often they come.
    const ctx = { db: database.db, tenantId: "main" };
    for (const [title, publishedAt] of [
      ["A week before", "2026-11-14T22:30:00.000Z"],
      ["Two weeks before", "2026-11-07T22:30:00.000Z"],
    ] as const) {
      const older = await createNewsletter(
        { ...ctx, authorId: null },
        { title, excerpt: "Older.", content: "<p>Older words.</p>" },
      );
      await publishNewsletter(ctx, older.id);
      await crossTenant(database.db)
        .updateTable("newsletters")
        .set({ published_at: publishedAt })
        .where("id", "=", older.id)
        .execute();
    }
    const response = await fetch(`${server.url}/newsletter/subscribe`, {
      method: "POST",
      body: new URLSearchParams({ email: "newcomer@example.com" }),
      headers: { cookie: "herald_subdomain=main", "x-forwarded-for": "203.0.113.9" },
      redirect: "manual",
    });
    expect(response.status).toBe(303);
    const welcome = await sink.waitFor((each) => each.to.includes("newcomer@example.com"));
    expect(welcome.subject).toBe("Welcome to our newsletter");
    expect(welcome.html).toContain("Welcome to Main Street Review");
    expect(welcome.html).toContain("Short notes on review technology, every other Tuesday.");
    expect(welcome.text).toContain("as soon as it is published, about once a week.");
    expect(welcome.html).toMatch(/href="https?:\/\/[^"]+\/newsletter\/review-in-the-age-of-ai"/);
    expect(welcome.text).toContain("Review in the age of AI");
    expect(welcome.text).toMatch(/Read the latest issue \(https?:\/\/[^)]+\/newsletter\/review/);
  });
});
