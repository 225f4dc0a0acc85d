import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "@playwright/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/migrate";
import { type EmailContent, renderEmail } from "../../server/emails/templates";
import { getLogger } from "../../server/logger";
import { sendMail } from "../../server/mail/send";
import { smtpTransport, type Transport } from "../../server/mail/transport";
import { createNewsletter } from "../../server/newsletters/editing";
import { publishNewsletter } from "../../server/newsletters/newsletters";
import { listTenantLists } from "../../server/subscribers/lists";
import { seedTenants } from "../../server/tenants/seed";
import { getTenant } from "../../server/tenants/store";
import { createStaffUser, signIn } from "../support/auth";
import { CHROMIUM_ARGS, requireChromium } from "../support/chromium";
import { createTestDatabase, type TestDatabase } from "../support/database";
import { sendAsEmail } from "../support/forms";
import { uploadTestPng } from "../support/images";
import { type RunningServer, startServer } from "../support/server";
import { type ReceivedMail, type SmtpSink, startSmtpSink } from "../support/smtp-sink";
import { insertSubscriber } from "../support/subscribers";

/*
 * Issue 12, "look at it": every template as the SMTP sink received it, opened in Chromium at a
 * phone's 375 px and the mail column's 600 px. Nothing scrolls sideways, every image shows, and
 * with images blocked (as many inboxes do by default) the alt text stands in. The screenshots are
 * kept in test-results/mail-rendering/.
 */

const SHOTS = join("test-results", "mail-rendering");
const WIDTHS = [375, 600];

describe("mail as a reader sees it", () => {
  let database: TestDatabase;
  let sink: SmtpSink;
  let server: RunningServer;
  let transport: Transport;
  let browser: Browser;
  const received = new Map<string, ReceivedMail>();

  beforeAll(async () => {
    const executablePath = requireChromium();
    mkdirSync(SHOTS, { recursive: true });
    database = await createTestDatabase("sqlite");
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    sink = await startSmtpSink();
    server = await startServer({
      databaseUrl: database.url,
      env: { SMTP_URL: sink.url, SEND_RATE: "0" },
    });
    transport = smtpTransport(sink.url);
    const cookie = await signIn(
      server.url,
      (await createStaffUser(database.db, { email: "chief@example.com", role: "super_admin" }))
        .email,
    );
    const upload = (width: number, height: number) =>
      uploadTestPng(server.url, cookie, width, height);
    const logo = await upload(160, 160);
    const chart = await upload(900, 450);
    // A newsletter's cover, full width in its campaign (issue 35).
    const cover = await upload(1600, 900);
    const branding = await fetch(`${server.url}/api/tenants/main/branding`, {
      method: "PATCH",
      headers: { cookie, origin: server.url, "content-type": "application/json" },
      body: JSON.stringify({ logoUrl: logo }),
    });
    expect(branding.status).toBe(200);

    // The templates, rendered by the product and sent over SMTP as the flows send them.
    const tenant = (await getTenant(database.db, "main")).config;
    const links = {
      preferencesUrl: `${server.url}/subscription/preferences`,
      unsubscribeUrl: `${server.url}/subscription/unsubscribe`,
    };
    const templates: Record<string, EmailContent> = {
      welcome: { kind: "welcome", listNames: ["KeyDiscovery Newsletter"], links },
      "confirm-signup": {
        kind: "confirm-signup",
        confirmUrl: `${server.url}/subscription/confirm/sample`,
        listNames: ["KeyDiscovery Newsletter", "Industry News"],
      },
      verification: {
        kind: "verification",
        verifyUrl: `${server.url}/subscription/preferences?token=sample`,
        joining: ["Industry News"],
        leaving: ["KeyDiscovery Updates"],
      },
      confirmation: { kind: "confirmation", listNames: ["KeyDiscovery Newsletter"], links },
      bounce: { kind: "bounce", email: "reader@example.com", links },
    };
    const ctx = { db: database.db, transport, logger: getLogger() };
    for (const [name, content] of Object.entries(templates)) {
      const email = await renderEmail(tenant, content, server.url);
      await sendMail(ctx, {
        ...email,
        to: `${name}@example.com`,
        headers: {},
        tenantId: "main",
        kind: content.kind,
      });
      received.set(name, await sink.waitFor((mail) => mail.to.includes(`${name}@example.com`)));
    }

    // A campaign through the admin, with an image, a heading, a list and a link.
    const list = (await listTenantLists(database.db, tenant)).find((l) => l.key === "newsletter");
    await insertSubscriber(database.db, {
      email: "campaign@example.com",
      status: "active",
      listIds: [list?.id ?? 0],
    });
    const scope = { db: database.db, tenantId: "main", authorId: null };
    const newsletter = await createNewsletter(scope, {
      title: "Proportionality, quarter by quarter",
      excerpt: "What courts expect from discovery requests this year.",
      content:
        "<h2>What to watch</h2><p>Courts now expect <strong>proportionality</strong> in every " +
        `<a href="/about">request</a>.</p><p><img src="${chart}" alt="Discovery costs by quarter"></p>` +
        "<ul><li><p>Custodians first</p></li><li><p>Then date ranges</p></li></ul>" +
        `<p>A very long address that must wrap: https://example.com/${"x".repeat(120)}</p>`,
      readTime: 3,
      coverImage: cover,
      coverAlt: "A courtroom at dawn",
    });
    await publishNewsletter(scope, newsletter.id);
    const sent = await sendAsEmail(
      server.url,
      `/admin/newsletter/send/${newsletter.id}`,
      {
        subject: "Proportionality, quarter by quarter",
        lists: "newsletter",
        trackOpens: "on",
        trackClicks: "on",
        mode: "now",
      },
      cookie,
    );
    expect(sent.status).toBe(303);
    received.set(
      "campaign",
      await sink.waitFor((mail) => mail.to.includes("campaign@example.com"), 20_000),
    );

    browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    transport?.close();
    await server?.stop();
    await sink?.stop();
    await database?.drop();
  });

  /** Opens a received mail's HTML as a webmail's reading pane would, `width` px wide. */
  async function open(name: string, width: number, blockImages: boolean): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height: 800 } });
    if (blockImages) {
      await context.route("**/*", (route) =>
        route.request().resourceType() === "image" ? route.abort() : route.continue(),
      );
    }
    const page = await context.newPage();
    await page.setContent(received.get(name)?.html ?? "", { waitUntil: "load" });
    return page;
  }

  const names = ["welcome", "confirm-signup", "verification", "confirmation", "bounce", "campaign"];

  it.each(names.flatMap((name) => WIDTHS.map((width) => [name, width] as const)))(
    "%s at %i px: no sideways scroll, every image shown",
    async (name, width) => {
      const page = await open(name, width, false);
      try {
        await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
        const layout = await page.evaluate(() => ({
          scrollWidth: document.documentElement.scrollWidth,
          innerWidth: window.innerWidth,
          images: [...document.images].map((image) => ({
            src: image.src,
            alt: image.alt,
            loaded: image.complete && image.naturalWidth > 0,
            right: image.getBoundingClientRect().right,
          })),
        }));
        expect(layout.scrollWidth, "horizontal scroll").toBeLessThanOrEqual(layout.innerWidth);
        expect(layout.images.length, "the logo at least").toBeGreaterThan(0);
        for (const image of layout.images) {
          expect(image.loaded, `${image.src} loads`).toBe(true);
          expect(image.right, `${image.src} fits`).toBeLessThanOrEqual(width);
        }
        if (name === "campaign") {
          expect(layout.images.map((image) => image.alt)).toContain("A courtroom at dawn");
        }
      } finally {
        await page.context().close();
      }
    },
  );

  it.each(names.flatMap((name) => WIDTHS.map((width) => [name, width] as const)))(
    "%s at %i px with images blocked: the alt text stands in",
    async (name, width) => {
      const page = await open(name, width, true);
      try {
        await page.screenshot({
          path: join(SHOTS, `${name}-${width}-images-blocked.png`),
          fullPage: true,
        });
        const images = await page.evaluate(() =>
          [...document.images].map((image) => {
            const box = image.getBoundingClientRect();
            return {
              alt: image.alt,
              broken: image.complete && image.naturalWidth === 0,
              width: box.width,
              height: box.height,
            };
          }),
        );
        const described = images.filter((image) => image.alt !== "");
        expect(described.length, "images that carry meaning have alt text").toBeGreaterThan(0);
        for (const image of described) {
          expect(image.broken, `${image.alt} is blocked`).toBe(true);
          // A blocked image with alt text keeps a box where the text is drawn.
          expect(image.width * image.height, `${image.alt} shows its alt text`).toBeGreaterThan(0);
        }
        expect(
          await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
        ).toBe(true);
      } finally {
        await page.context().close();
      }
    },
  );
});
