import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { createNewsletter } from "../../server/newsletters/editing";
import { publishNewsletter } from "../../server/newsletters/newsletters";
import { listTenantLists } from "../../server/subscribers/lists";
import { seedTenants } from "../../server/tenants/seed";
import { getTenant } from "../../server/tenants/store";
import { createStaffUser, signIn } from "../support/auth";
import {
  countRows,
  createTestDatabase,
  type TestDatabase,
  testDialects,
} from "../support/database";
import { postForm, sendAsEmail } from "../support/forms";
import { testPng } from "../support/images";
import { relativeUrlsIn } from "../support/mail-urls";
import { type RunningServer, startServer } from "../support/server";
import { type ReceivedMail, type SmtpSink, startSmtpSink } from "../support/smtp-sink";
import { insertSubscriber } from "../support/subscribers";

/*
 * Issue 12: what lands in the reader's inbox. A newsletter with an uploaded image, relative links,
 * a heading and a list goes out as a campaign through a real SMTP server on loopback, and the
 * message is read as a mail client would read it.
 */

const SECRET = "mail-in-the-inbox-secret-0123456789abcdef";
const WORDS = 1_500;

/** About 1,500 words of newsletter prose in 30 paragraphs, with a heading and a list. */
function longContent(imageUrl: string): string {
  const sentence =
    "Courts expect parties to meet and confer early about the scope of preservation and the custodians that matter. ";
  const words = sentence.trim().split(/\s+/).length;
  const paragraphs = Array.from(
    { length: Math.ceil(WORDS / words / 3) },
    (_, index) => `<p>${sentence.repeat(3).trim()} (${index + 1})</p>`,
  );
  return [
    "<h2>What to watch</h2>",
    `<p>Read <a href="/about">about us</a> and <a href="https://example.com/ruling?a=1&amp;b=2">the ruling</a>.</p>`,
    `<p><img src="${imageUrl}" alt="Chart of discovery costs"></p>`,
    "<ul><li><p>Proportionality</p></li><li><p>Custodians</p></li></ul>",
    ...paragraphs,
  ].join("");
}

describe.each(testDialects())("the email in the inbox on %s", (dialect) => {
  let database: TestDatabase;
  let sink: SmtpSink;
  let server: RunningServer;
  let cookie = "";
  let imageUrl = "";
  let newsletterId = "";
  let campaignMail: ReceivedMail;

  const post = (path: string, fields: Record<string, string | string[]>) =>
    postForm(server.url, path, fields, cookie);

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    sink = await startSmtpSink();
    server = await startServer({
      databaseUrl: database.url,
      env: { SMTP_URL: sink.url, SESSION_SECRET: SECRET, SEND_RATE: "0" },
    });
    const staff = await createStaffUser(database.db, {
      email: "chief@example.com",
      role: "super_admin",
    });
    cookie = await signIn(server.url, staff.email);

    const form = new FormData();
    form.set("file", new Blob([testPng(800, 400).slice()], { type: "image/png" }), "chart.png");
    const uploaded = await fetch(`${server.url}/admin/uploads`, {
      method: "POST",
      body: form,
      headers: { cookie, origin: server.url },
    });
    expect(uploaded.status).toBe(200);
    imageUrl = ((await uploaded.json()) as { url: string }).url;
    expect(imageUrl).toMatch(/^\/uploads\/main\//);

    // The tenant's logo as staff upload it: a path on the site.
    const branding = await fetch(`${server.url}/api/tenants/main/branding`, {
      method: "PATCH",
      headers: { cookie, origin: server.url, "content-type": "application/json" },
      body: JSON.stringify({ logoUrl: imageUrl }),
    });
    expect(branding.status).toBe(200);

    const tenant = (await getTenant(database.db, "main")).config;
    const newsletterList = (await listTenantLists(database.db, tenant)).find(
      (list) => list.key === "newsletter",
    );
    for (const email of ["reader0@example.com", "reader1@example.com"]) {
      await insertSubscriber(database.db, {
        email,
        status: "active",
        listIds: [newsletterList?.id ?? 0],
      });
    }
    const scope = { db: database.db, tenantId: "main", authorId: null };
    newsletterId = (
      await createNewsletter(scope, {
        title: "Proportionality, quarter by quarter",
        excerpt: "What courts expect from discovery requests this year.",
        content: longContent(imageUrl),
        readTime: 7,
      })
    ).id;
    await publishNewsletter(scope, newsletterId);

    const sent = await sendAsEmail(
      server.url,
      `/admin/newsletter/send/${newsletterId}`,
      {
        subject: "Proportionality, quarter by quarter",
        senderName: "Herald Editors",
        senderEmail: "editors@news.keydiscovery.com",
        replyTo: "desk@herald.example",
        lists: ["newsletter"],
        trackOpens: "on",
        trackClicks: "on",
        mode: "now",
      },
      cookie,
    );
    expect(sent.status).toBe(303);
    campaignMail = await sink.waitFor((mail) => mail.to.includes("reader0@example.com"), 20_000);
  });

  afterAll(async () => {
    await server?.stop();
    await sink?.stop();
    await database?.drop();
  });

  it("carries only absolute URLs on the tenant's origin, for images, links and the logo", () => {
    expect(relativeUrlsIn(campaignMail.html, campaignMail.headers)).toEqual([]);
    expect(campaignMail.html).toContain(`src="${server.url}${imageUrl}"`);
    expect(campaignMail.html).toMatch(
      new RegExp(`<img [^>]*alt="KeyDiscovery"[^>]*src="${server.url}${imageUrl}"`),
    );
    // Tracked: the click link goes through Herald, and the redirect leads to the absolute page.
    expect(campaignMail.html).not.toContain('href="/about"');
    expect(campaignMail.text).toContain(`${server.url}/t/c/`);
  });

  it("sends a relative link in the content to the page on the tenant's site", async () => {
    const link = [
      ...campaignMail.html.matchAll(/<a[^>]*href="([^"]*\/t\/c\/[^"]*)"[^>]*>about us</g),
    ];
    const target = link[0]?.[1]?.replaceAll("&amp;", "&") ?? "";
    expect(target).toMatch(/\/t\/c\//);
    const response = await fetch(target, { redirect: "manual" });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(`${server.url}/about`);
  });

  it("lets another origin load what the mail loads from Herald: images, logo and open pixel", async () => {
    const pixel = /<img[^>]*src="([^"]*\/t\/o\/[^"]*)"/.exec(campaignMail.html)?.[1] ?? "";
    expect(pixel).not.toBe("");
    for (const url of [`${server.url}${imageUrl}`, pixel.replaceAll("&amp;", "&")]) {
      const response = await fetch(url, { headers: { origin: "https://mail.example" } });
      expect(response.status, url).toBe(200);
      expect(response.headers.get("cross-origin-resource-policy"), url).toBe("cross-origin");
    }
  });

  /** The address of the newsletter the campaign sends: /newsletter/{slug}. */
  const newsletterSlug = async () =>
    (
      await crossTenant(database.db)
        .selectFrom("newsletters")
        .select("slug")
        .where("id", "=", newsletterId)
        .executeTakeFirstOrThrow()
    ).slug;

  it("is laid out as a newsletter: viewport, light scheme, headline, preheader, and a footer that says why", async () => {
    const { html } = campaignMail;
    expect(html).toMatch(/<meta[^>]*name="viewport"[^>]*content="width=device-width/);
    expect(html).toMatch(/<meta[^>]*name="color-scheme"[^>]*content="light"/);
    expect(html).toMatch(/<h1[^>]*>Proportionality, quarter by quarter<\/h1>/);
    // The preheader: hidden, first in the body, the newsletter's excerpt.
    expect(html).toMatch(
      /<div[^>]*display:none[^>]*>What courts expect from discovery requests this year\./,
    );
    expect(html).toContain("View in browser");
    const slug = await newsletterSlug();
    expect(html).toContain(`${server.url}/newsletter/${slug}`);
    expect(html).toContain(
      "You receive this because you subscribed to KeyDiscovery Newsletter on localhost:",
    );
    expect(html).toMatch(/Manage your preferences/);
    expect(html).toMatch(/Unsubscribe/);
  });

  it("fits images in the column and gives them alt text", () => {
    const images = [...campaignMail.html.matchAll(/<img\b[^>]*>/g)].map((match) => match[0]);
    expect(images.length).toBeGreaterThanOrEqual(3);
    for (const image of images) {
      expect(image, image).toMatch(/\balt="/);
      const width = Number(/\bwidth="(\d+)"/.exec(image)?.[1] ?? Number.NaN);
      if (!Number.isNaN(width)) expect(width, image).toBeLessThanOrEqual(600);
    }
    // The stored 800 × 400 image, scaled to the 536 px column; fluid below that on phones.
    const chart = images.find((image) => image.includes("Chart of discovery costs")) ?? "";
    expect(chart).toMatch(/\bwidth="536"/);
    expect(chart).toMatch(/\bheight="268"/);
    expect(chart).toMatch(/style="[^"]*width:100%;max-width:536px/);
    expect(chart).toMatch(/height:auto/);
  });

  it("shows the same image on the web page as AVIF and WebP by width, with its size", async () => {
    const slug = await newsletterSlug();
    const page = await (await fetch(`${server.url}/newsletter/${slug}`)).text();
    const picture = /<picture>[\s\S]*?<\/picture>/.exec(page)?.[0] ?? "";
    const stem = imageUrl.replace(/\.jpg$/, "");
    expect(picture).toContain(
      `<source type="image/avif" srcset="${stem}-480.avif 480w, ${stem}-800.avif 800w"`,
    );
    expect(picture).toContain(`<source type="image/webp" srcset="${stem}-480.webp 480w`);
    expect(picture).toMatch(/sizes="\(min-width: 48rem\) 48rem, 100vw"/);
    expect(picture).toMatch(
      new RegExp(`<img src="${imageUrl}" alt="Chart of discovery costs" width="800" height="400"`),
    );
  });

  it("stays under Gmail's 102 KB clipping limit with 1,500 words", () => {
    const words = campaignMail.text.split(/\s+/).filter(Boolean).length;
    expect(words).toBeGreaterThan(WORDS);
    expect(Buffer.byteLength(campaignMail.html, "utf8")).toBeLessThan(102 * 1024);
  });

  it("has a readable text part: headings on their own lines, list bullets, links as text (url)", () => {
    const { text } = campaignMail;
    expect(text).toMatch(/^What to watch$/m);
    expect(text).toMatch(/^ \* Proportionality$/m);
    expect(text).toMatch(/^ \* Custodians$/m);
    expect(text).toMatch(/the ruling \(http:\/\/localhost:\d+\/t\/c\/[^)]+\)/);
    expect(text).not.toContain("%%HERALD_");
  });

  it("names the list, and makes its Message-ID on the sender's domain", () => {
    expect(campaignMail.messageId).toMatch(/^<d\d+\.[0-9a-f-]{36}@news\.keydiscovery\.com>$/);
    expect(campaignMail.headers.get("list-id")).toBe(
      '"KeyDiscovery Newsletter" <newsletter.main.localhost>',
    );
    expect(campaignMail.headers.get("list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
    expect(campaignMail.headers.get("reply-to")).toBe("desk@herald.example");
  });

  it("takes Reply-To from the tenant's email settings, and refuses a bad one anywhere", async () => {
    const campaigns = () => countRows(database.db, "campaigns");
    const before = await campaigns();
    const refused = await post(`/admin/newsletter/send/${newsletterId}`, {
      subject: "Again",
      replyTo: "not an address",
      lists: ["newsletter"],
      mode: "now",
      intent: "create",
    });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("Invalid reply-to email format");
    expect(await campaigns()).toBe(before);

    const api = (method: string, body?: unknown) =>
      fetch(`${server.url}/api/tenants/main`, {
        method,
        headers: { cookie, origin: server.url, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const { tenant: settings } = (await (await api("GET")).json()) as {
      tenant: { email: Record<string, string> };
    };
    const bad = await api("PUT", { ...settings, email: { ...settings.email, replyTo: "<b>x" } });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("Reply-to email: Invalid email format");
    const good = await api("PUT", {
      ...settings,
      email: { ...settings.email, replyTo: "replies@herald.example" },
    });
    expect(good.status, await good.clone().text()).toBe(200);

    await fetch(`${server.url}/api/functions/addSubscriber`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ data: { email: "second-visitor@example.com" } }),
    });
    const mail = await sink.waitFor((each) => each.to.includes("second-visitor@example.com"));
    expect(mail.headers.get("reply-to")).toBe("replies@herald.example");
  });

  it("sends transactional mail in the same frame, and the outbox keeps exactly what was sent", async () => {
    const answer = await fetch(`${server.url}/api/functions/addSubscriber`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ data: { email: "visitor@example.com", name: "Visitor" } }),
    });
    expect(answer.status).toBe(200);
    const mail = await sink.waitFor((each) => each.to.includes("visitor@example.com"));
    expect(relativeUrlsIn(mail.html, mail.headers)).toEqual([]);
    expect(mail.html).toMatch(/<meta[^>]*name="viewport"/);
    expect(mail.messageId).toMatch(/@[a-z0-9.-]+\.[a-z]+>$/);
    expect(mail.messageId).not.toMatch(/@herald>$/);
    const logged = await crossTenant(database.db)
      .selectFrom("mail_log")
      .select(["html", "text"])
      .where("to_address", "=", "visitor@example.com")
      .executeTakeFirstOrThrow();
    expect(mail.html.trim()).toBe(logged.html.trim());
  });
});
