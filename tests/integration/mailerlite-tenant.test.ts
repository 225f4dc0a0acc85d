import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { smtpTransport, type Transport } from "../../server/mail/transport";
import { createNewsletter } from "../../server/newsletters/editing";
import { publishNewsletter } from "../../server/newsletters/newsletters";
import { mailerLiteGroupIds, providerNameFor } from "../../server/providers";
import {
  applyPreferenceChange,
  requestPreferenceChange,
} from "../../server/subscribers/preferences";
import { confirmSignup, signUp } from "../../server/subscribers/signup";
import { findSubscriber, type SubscriptionContext } from "../../server/subscribers/subscribers";
import { unsubscribe } from "../../server/subscribers/unsubscribe";
import type { TenantConfig } from "../../server/tenants/config";
import { seedTenants } from "../../server/tenants/seed";
import { getTenant, invalidateTenant } from "../../server/tenants/store";
import { createStaffUser, signIn } from "../support/auth";
import { createTestDatabase, type TestDatabase } from "../support/database";
import { type FakeMailerLite, startFakeMailerLite } from "../support/fake-mailerlite";
import { sendAsEmail } from "../support/forms";
import { textOf } from "../support/html";
import { type RunningServer, startServer } from "../support/server";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink";
import { scaled } from "../support/timing";

const SECRET = "mailerlite-tenant-secret-0123456789abcdef";
const GROUPS = { newsletter: "9001", "product-updates": "9002", "industry-news": "9003" };

/**
 * Issue 7: a tenant whose audience lives in MailerLite. The subscription flows write to MailerLite
 * (here the documented-behaviour fake) before the local mirror, lookups read MailerLite, campaigns
 * are created there; a MailerLite failure changes nothing.
 */
describe("a tenant on MailerLite", () => {
  let database: TestDatabase;
  let fake: FakeMailerLite;
  let sink: SmtpSink;
  let transport: Transport;
  let ctx: SubscriptionContext;

  const remote = (email: string) =>
    [...fake.subscribers.values()].find((subscriber) => subscriber.email === email);

  beforeAll(async () => {
    fake = await startFakeMailerLite();
    for (const [key, id] of Object.entries(GROUPS)) fake.groups.set(id, { id, name: key });
    // providerFor reads the deployment's settings from the environment, as the server does.
    process.env.MAILERLITE_API_KEY = fake.apiKey;
    process.env.MAILERLITE_BASE_URL = fake.url;
    database = await createTestDatabase("sqlite");
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    await database.db
      .updateTable("tenants")
      .set({
        mail_list_group_id: GROUPS.newsletter,
        config: JSON.stringify({
          mailProvider: "mailerlite",
          mailerLiteGroups: {
            "product-updates": GROUPS["product-updates"],
            "industry-news": GROUPS["industry-news"],
          },
          features: { doubleOptIn: false },
        }),
        updated_at: new Date().toISOString(),
      })
      .where("id", "=", "keydiscovery")
      .execute();
    invalidateTenant("keydiscovery");
    sink = await startSmtpSink();
    transport = smtpTransport(sink.url);
    ctx = {
      db: database.db,
      logger: pino({ level: "silent" }),
      transport,
      tenant: (await getTenant(database.db, "keydiscovery")).config,
      origin: "http://localhost:3000",
      sessionSecret: SECRET,
    };
  });

  afterAll(async () => {
    transport?.close();
    await sink?.stop();
    await fake?.stop();
    await database?.drop();
  });

  it("maps the tenant's lists to MailerLite groups, the default list first", () => {
    expect(providerNameFor(ctx.tenant)).toBe("mailerlite");
    expect(Object.entries(mailerLiteGroupIds(ctx.tenant))).toEqual([
      ["newsletter", "9001"],
      ["product-updates", "9002"],
      ["industry-news", "9003"],
    ]);
  });

  it("signs up in MailerLite first, then mirrors the subscriber locally", async () => {
    const outcome = await signUp(ctx, {
      email: "ml-reader@example.com",
      name: "Morgan",
      lists: ["newsletter", "industry-news"],
    });
    expect(outcome.outcome).toBe("subscribed");
    expect(remote("ml-reader@example.com")?.groups.sort()).toEqual(["9001", "9003"]);
    expect(remote("ml-reader@example.com")?.fields.name).toBe("Morgan");
    const local = await findSubscriber(ctx, "ml-reader@example.com");
    expect(local?.status).toBe("active");
    expect(local?.lists).toEqual(["newsletter", "industry-news"]);
  });

  it("reads lookups from MailerLite: a change made there shows in the preference centre", async () => {
    const subscriber = remote("ml-reader@example.com");
    if (!subscriber) throw new Error("not in MailerLite");
    subscriber.groups = ["9002"];
    const local = await findSubscriber(ctx, "ml-reader@example.com");
    expect(local?.lists).toEqual(["product-updates"]);
    // Someone who only exists in MailerLite is found too, and mirrored.
    fake.subscribers.set("7777", {
      id: "7777",
      email: "only-in-ml@example.com",
      status: "active",
      fields: { name: null },
      groups: ["9001"],
      subscribed_at: new Date().toISOString(),
    });
    expect((await findSubscriber(ctx, "only-in-ml@example.com"))?.lists).toEqual(["newsletter"]);
  });

  it("applies a verified preference change in MailerLite, leaving groups that are no longer wanted", async () => {
    const before = sink.messages.length;
    await requestPreferenceChange(ctx, {
      email: "ml-reader@example.com",
      activeLists: ["newsletter", "industry-news"],
    });
    const mail = await sink.waitFor(
      (m) => m.to.includes("ml-reader@example.com") && sink.messages.indexOf(m) >= before,
    );
    const token = /token=([\w-]+)/.exec(mail.text)?.[1] ?? "";
    const view = await applyPreferenceChange(ctx, { email: "ml-reader@example.com", token });
    expect(view.lists).toEqual(["newsletter", "industry-news"]);
    expect(remote("ml-reader@example.com")?.groups.sort()).toEqual(["9001", "9003"]);
    // MailerLite's PUT replaces groups: leaving one must go through DELETE, never a PUT with groups.
    expect(
      fake.requests.some((r) => r.method === "PUT" && r.body && "groups" in (r.body as object)),
    ).toBe(false);
    expect(
      fake.requests.some((r) => r.method === "DELETE" && r.path.endsWith("/groups/9002")),
    ).toBe(true);
  });

  it(
    "changes nothing locally when MailerLite fails, and says so",
    async () => {
      fake.failNext = { status: 503, count: 10 };
      await expect(unsubscribe(ctx, { email: "ml-reader@example.com" })).rejects.toThrow(
        "Failed to unsubscribe. Please try again.",
      );
      fake.failNext = null;
      const row = await crossTenant(database.db)
        .selectFrom("subscribers")
        .select("status")
        .where("email", "=", "ml-reader@example.com")
        .executeTakeFirstOrThrow();
      expect(row.status).toBe("active");
      expect(remote("ml-reader@example.com")?.status).toBe("active");
    },
    scaled(30_000),
  );

  it("unsubscribes in MailerLite and in the mirror", async () => {
    await unsubscribe(ctx, { email: "ml-reader@example.com" });
    expect(remote("ml-reader@example.com")?.status).toBe("unsubscribed");
    expect((await findSubscriber(ctx, "ml-reader@example.com"))?.status).toBe("unsubscribed");
  });

  it("with double opt-in, MailerLite hears of the subscriber only once they confirm", async () => {
    const tenant: TenantConfig = {
      ...ctx.tenant,
      features: { ...ctx.tenant.features, doubleOptIn: true },
    };
    const optIn = { ...ctx, tenant };
    const { subscriberId, outcome } = await signUp(optIn, {
      email: "careful@example.com",
      lists: ["newsletter"],
    });
    expect(outcome).toBe("confirmation-sent");
    expect(remote("careful@example.com")).toBeUndefined();
    await confirmSignup(optIn, subscriberId);
    expect(remote("careful@example.com")?.groups).toEqual(["9001"]);
  });

  describe("through the admin pages", () => {
    let server: RunningServer;
    let cookie = "";
    let newsletterId = "";

    beforeAll(async () => {
      server = await startServer({
        databaseUrl: database.url,
        env: {
          SESSION_SECRET: SECRET,
          SMTP_URL: sink.url,
          MAILERLITE_API_KEY: fake.apiKey,
          MAILERLITE_BASE_URL: fake.url,
        },
      });
      const user = await createStaffUser(database.db, {
        email: "ml-chief@example.com",
        role: "super_admin",
      });
      cookie = `${await signIn(server.url, user.email)}; herald_subdomain=keydiscovery`;
      const scope = { db: database.db, tenantId: "keydiscovery", authorId: null };
      newsletterId = (
        await createNewsletter(scope, {
          title: "Sent through MailerLite",
          excerpt: "A campaign MailerLite sends",
          content:
            '<p>Read <a href="https://example.com/a">this</a>.</p>' +
            '<div data-block="web-only"><p>Only on the website</p></div>' +
            '<div data-block="email-only"><p>Only in the email</p></div>' +
            '<div data-block="button"><a href="/newsletter">All issues</a></div>',
          readTime: 2,
        })
      ).id;
      await publishNewsletter(scope, newsletterId);
    });

    afterAll(async () => {
      await server?.stop();
    });

    it("sends a newsletter as a MailerLite campaign to the mapped groups and lists it", async () => {
      const response = await sendAsEmail(
        server.url,
        `/admin/newsletter/send/${newsletterId}`,
        {
          subject: "Sent through MailerLite",
          senderName: "KeyDiscovery Legal",
          senderEmail: "newsletter@keydiscovery.com",
          lists: "industry-news",
          trackOpens: "on",
          trackClicks: "on",
          mode: "now",
        },
        cookie,
      );
      expect(response.status).toBe(303);
      expect(response.headers.get("location")).toBe("/admin/campaigns");
      const campaign = [...fake.campaigns.values()].find(
        (each) => each.name === "Sent through MailerLite",
      );
      expect(campaign?.groups).toEqual(["9003"]);
      expect(campaign?.status).toBe("sent");
      // The email pass as Herald's own sender gives it: sections chosen, the button a table with
      // inline styles, links absolute (MailerLite sends the HTML it is given).
      const content = campaign?.emails[0]?.content ?? "";
      expect(content).toContain("Only in the email");
      expect(content).not.toContain("Only on the website");
      expect(content).not.toContain("data-block");
      expect(content).toMatch(/<table[^>]*>[\s\S]*All issues/);
      expect(content).toMatch(/href="https?:\/\/[^"]+\/newsletter"/);
      const newsletter = await crossTenant(database.db)
        .selectFrom("newsletters")
        .select(["mailerlite_campaign_id", "send_status", "sent_at"])
        .where("id", "=", newsletterId)
        .executeTakeFirstOrThrow();
      expect(newsletter.mailerlite_campaign_id).toBe(campaign?.id);
      expect(newsletter.send_status).toBe("sent");
      // Nothing went through Herald's own engine.
      expect(await crossTenant(database.db).selectFrom("campaigns").select("id").execute()).toEqual(
        [],
      );

      const list = textOf(
        await (await fetch(`${server.url}/admin/campaigns`, { headers: { cookie } })).text(),
      );
      expect(list).toContain("MailerLite (campaigns are sent and counted by MailerLite)");
      expect(list).toContain("Sent through MailerLite");
    });

    it("refuses an A/B subject test plainly: MailerLite runs its own (decision 051)", async () => {
      const before = fake.campaigns.size;
      const response = await sendAsEmail(
        server.url,
        `/admin/newsletter/send/${newsletterId}`,
        {
          subject: "Sent through MailerLite",
          lists: "industry-news",
          trackOpens: "on",
          trackClicks: "on",
          mode: "now",
          abTest: "on",
          abSubject1: "Another subject",
          abShare: "20",
          abWinnerBy: "opens",
          abWaitHours: "4",
        },
        cookie,
      );
      expect(response.status).toBe(400);
      expect(textOf(await response.text())).toContain(
        "A/B subject lines are not available while this site sends through MailerLite",
      );
      expect(fake.campaigns.size).toBe(before);
    });

    it("shows staff which provider the tenant uses", async () => {
      const page = textOf(
        await (
          await fetch(`${server.url}/admin/tenants/keydiscovery`, { headers: { cookie } })
        ).text(),
      );
      expect(page).toContain("MailerLite (this tenant's setting)");
      expect(page).toContain("MailerLite group of industry-news 9003");
    });
  });
});
