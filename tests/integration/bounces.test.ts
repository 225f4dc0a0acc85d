import nodemailer from "nodemailer";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getCampaignRow } from "../../server/campaigns/campaign-row";
import { createCampaign } from "../../server/campaigns/campaigns";
import { verifyDeliveryToken } from "../../server/campaigns/tracking-links";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { outboxTransport } from "../../server/mail/transport";
import { listTenantLists } from "../../server/subscribers/lists";
import type { SubscriptionContext } from "../../server/subscribers/subscribers";
import { seedTenants } from "../../server/tenants/seed";
import { getTenant } from "../../server/tenants/store";
import { createStaffUser, signIn } from "../support/auth";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { textOf } from "../support/html";
import { arfMessage, dsnMessage } from "../support/reports";
import { freePort, type RunningServer, startServer } from "../support/server";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink";
import { insertSubscriber } from "../support/subscribers";
import { scaled } from "../support/timing";

const SECRET = "bounces-test-secret-bounces-test-secret-0123";
const BOUNCE_DOMAIN = "bounces.herald.test";
const TENANT = "quick";

describe.each(testDialects())("bounces and complaints on %s", (dialect) => {
  let database: TestDatabase;
  let sink: SmtpSink;
  let server: RunningServer;
  let bouncePort = 0;
  let ctx: SubscriptionContext;
  let adminCookie = "";
  let newsletterList = 0;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    // A tenant without double opt-in: a sign-up is welcomed at once, unless the address bounced.
    const now = new Date().toISOString();
    await database.db
      .insertInto("tenants")
      .values({
        id: TENANT,
        name: "Quick Brew",
        domain: null,
        description: "",
        mail_list_group_id: null,
        config: JSON.stringify({
          branding: { companyName: "Quick Brew Coffee Co" },
          features: { doubleOptIn: false },
        }),
        created_at: now,
        updated_at: now,
      })
      .execute();
    const tenant = (await getTenant(database.db, TENANT)).config;
    const lists = await listTenantLists(database.db, tenant);
    newsletterList = lists.find((list) => list.key === "newsletter")?.id ?? 0;
    sink = await startSmtpSink();
    bouncePort = await freePort();
    server = await startServer({
      databaseUrl: database.url,
      env: {
        SMTP_URL: sink.url,
        SESSION_SECRET: SECRET,
        SEND_RATE: "0",
        BOUNCE_SMTP_PORT: String(bouncePort),
        BOUNCE_DOMAIN: BOUNCE_DOMAIN,
      },
    });
    ctx = {
      db: database.db,
      logger: pino({ level: "silent" }),
      transport: outboxTransport(),
      tenant,
      origin: server.url,
      sessionSecret: SECRET,
    };
    const admin = await createStaffUser(database.db, {
      email: "chief@example.com",
      role: "super_admin",
    });
    adminCookie = `${await signIn(server.url, admin.email)}; herald_subdomain=${TENANT}`;
  });

  afterAll(async () => {
    await server?.stop();
    await sink?.stop();
    await database?.drop();
  });

  const subscribe = (email: string) =>
    insertSubscriber(database.db, { email, tenantId: TENANT, listIds: [newsletterList] });

  async function sendCampaign(subject: string) {
    const campaign = await createCampaign(
      ctx,
      { subject, content: "<p>Fresh beans.</p>", groups: ["newsletter"] },
      null,
    );
    const deadline = Date.now() + scaled(30_000);
    while (Date.now() < deadline) {
      const row = await getCampaignRow(database.db, TENANT, campaign.id);
      if (row.status === "sent" || row.status === "failed") return row;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`campaign ${subject} did not finish`);
  }

  const deliveryOf = (campaignId: string, email: string) =>
    crossTenant(database.db)
      .selectFrom("deliveries")
      .selectAll()
      .where("campaign_id", "=", campaignId)
      .where("email", "=", email)
      .executeTakeFirst();

  const statusOf = async (email: string) =>
    (
      await database.db
        .selectFrom("subscribers")
        .select("status")
        .where("tenant_id", "=", TENANT)
        .where("email", "=", email)
        .executeTakeFirstOrThrow()
    ).status;

  const page = async (path: string) => {
    const response = await fetch(`${server.url}${path}`, { headers: { cookie: adminCookie } });
    expect(response.status).toBe(200);
    return textOf(await response.text());
  };

  /** Hands a raw message to the bounce listener over SMTP. */
  async function report(to: string, raw: string) {
    const transport = nodemailer.createTransport({
      host: "127.0.0.1",
      port: bouncePort,
      ignoreTLS: true,
    });
    try {
      return await transport.sendMail({
        envelope: { from: "MAILER-DAEMON@mx.example.net", to },
        raw,
      });
    } finally {
      transport.close();
    }
  }

  it("a 550 at send time bounces the delivery and suppresses the address: no second campaign, no welcome", async () => {
    const [ok, gone] = ["sync-ok@example.com", "sync-gone@example.com"];
    await subscribe(ok);
    await subscribe(gone);
    let triesForGone = 0;
    sink.answer = (to) => {
      if (to !== gone) return undefined;
      triesForGone++;
      return 550;
    };
    const first = await sendCampaign("Issue 1");
    expect(first.status).toBe("sent");
    const bounced = await deliveryOf(first.id, gone);
    expect(bounced).toMatchObject({ status: "failed", attempts: 1 });
    expect(bounced?.bounced_at).toBeTruthy();
    expect(bounced?.feedback).toMatch(/550 Mailbox unavailable/);
    expect(await statusOf(gone)).toBe("bounced");
    expect(await statusOf(ok)).toBe("active");
    expect(triesForGone).toBe(1);

    // The envelope sender is the delivery's VERP address; its token verifies; the header carries it too.
    const received = sink.messages.find(
      (mail) => mail.to.includes(ok) && mail.subject === "Issue 1",
    );
    const okDelivery = await deliveryOf(first.id, ok);
    const token = received?.from.match(/^bounces\+([^@]+)@(.+)$/);
    expect(token?.[2]).toBe(BOUNCE_DOMAIN);
    expect(verifyDeliveryToken(SECRET, token?.[1] ?? "")).toBe(okDelivery?.id);
    expect(received?.from.split("@")[0]?.length).toBeLessThanOrEqual(64);
    expect(received?.headers.get("x-herald-delivery")).toBe(token?.[1]);
    // The From header is still the tenant's sender, not the bounce address.
    expect(received?.parsed.from?.value[0]?.address).not.toContain("bounces+");

    const second = await sendCampaign("Issue 2");
    expect(await deliveryOf(second.id, gone)).toBeUndefined();
    expect(await deliveryOf(second.id, ok)).toMatchObject({ status: "sent" });
    expect(triesForGone).toBe(1);

    // Signing up again is no welcome: the address has to confirm first (its mailbox is back).
    sink.answer = () => undefined;
    const signUp = await fetch(`${server.url}/newsletter/subscribe`, {
      method: "POST",
      body: new URLSearchParams({ email: gone }),
      headers: { cookie: `herald_subdomain=${TENANT}`, "x-forwarded-for": "198.51.100.7" },
      redirect: "manual",
    });
    expect(signUp.status).toBe(303);
    const confirm = await sink.waitFor((mail) => mail.to.includes(gone));
    expect(confirm.subject).toMatch(/confirm/i);
    expect(await statusOf(gone)).toBe("bounced");
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(sink.messages.filter((mail) => mail.to.includes(gone))).toHaveLength(1);

    // Following the emailed link confirms the address again; then the welcome goes out.
    const link = new URL(
      confirm.text.match(/https?:\/\/\S+\/subscription\/confirm\/[^\s\])]+/)?.[0] ?? "",
    );
    const confirmed = await fetch(`${server.url}${link.pathname}${link.search}`, {
      method: "POST",
      // what a browser sends for the page's button: an empty form
      headers: {
        "x-forwarded-for": "198.51.100.7",
        "content-type": "application/x-www-form-urlencoded",
      },
      redirect: "manual",
    });
    expect(confirmed.status).toBe(302);
    expect(await statusOf(gone)).toBe("active");
    await sink.waitFor((mail) => mail.to.includes(gone) && /welcome/i.test(mail.subject));
  });

  it("records DSN bounces and ARF complaints that come back to the listener, and nothing else", async () => {
    const people = ["dsn@example.com", "arf@example.com", "spared@example.com"];
    for (const email of people) await subscribe(email);
    const campaign = await sendCampaign("Issue 3");
    const verpOf = (email: string) => {
      const mail = sink.messages.find((m) => m.to.includes(email) && m.subject === "Issue 3");
      if (!mail) throw new Error(`no mail to ${email}`);
      return { envelope: mail.from, header: mail.headers.get("x-herald-delivery") ?? "" };
    };
    const [dsn, arf, spared] = people.map(verpOf) as [
      ReturnType<typeof verpOf>,
      ReturnType<typeof verpOf>,
      ReturnType<typeof verpOf>,
    ];

    // What changes nothing: a forged token, a delayed DSN, a non-report, garbage.
    const forged = spared.envelope.replace(/([0-9a-f])@/, (_, hex: string) =>
      hex === "0" ? "1@" : "0@",
    );
    await report(forged, dsnMessage({ to: forged, finalRecipient: people[2] as string }));
    await report(
      spared.envelope,
      dsnMessage({
        to: spared.envelope,
        finalRecipient: people[2] as string,
        action: "delayed",
        status: "4.4.7",
      }),
    );
    await report(
      spared.envelope,
      `From: someone@example.org\r\nTo: ${spared.envelope}\r\nSubject: Out of office\r\n\r\nI am away.\r\n`,
    );
    await report(spared.envelope, "\u0000\u0001\u0002 not mail at all \r\n\r\n--\r\n");
    const untouched = await deliveryOf(campaign.id, people[2] as string);
    expect(untouched).toMatchObject({ bounced_at: null, complained_at: null, status: "sent" });
    expect(await statusOf(people[2] as string)).toBe("active");
    // Each is logged as a warning (the delayed DSN at info level, below the test server's warn).
    const ignoredLines = () =>
      server
        .output()
        .split("\n")
        .filter((line) => line.includes('"msg":"bounce report ignored"'));
    // The server's log reaches this process through a pipe: give it a moment.
    const deadline = Date.now() + scaled(2_000);
    while (ignoredLines().length < 3 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const ignored = ignoredLines();
    expect(ignored.map((line) => JSON.parse(line).reason)).toEqual([
      "bad delivery token",
      "not a multipart/report",
      "not a multipart/report",
    ]);

    // Recipients outside bounces+…@BOUNCE_DOMAIN are refused at RCPT.
    for (const outsider of [
      "bounces+1.abc@elsewhere.example",
      `postmaster@${BOUNCE_DOMAIN}`,
      `bounces@${BOUNCE_DOMAIN}`,
    ]) {
      await expect(
        report(outsider, dsnMessage({ to: outsider, finalRecipient: "x@example.org" })),
      ).rejects.toMatchObject({ responseCode: 550, command: "RCPT TO" });
    }

    // A real DSN to the VERP address: a hard bounce.
    await report(
      dsn.envelope,
      dsnMessage({ to: dsn.envelope, finalRecipient: people[0] as string }),
    );
    const bounced = await deliveryOf(campaign.id, people[0] as string);
    expect(bounced?.bounced_at).toBeTruthy();
    expect(bounced?.feedback).toMatch(/^DSN 5\.1\.1: smtp; 550 5\.1\.1/);
    expect(await statusOf(people[0] as string)).toBe("bounced");

    // An ARF complaint from a feedback loop that writes to its own address: the signed header decides.
    const fbl = `bounces+fbl@${BOUNCE_DOMAIN}`;
    await report(
      fbl,
      arfMessage({
        to: fbl,
        originalRcptTo: people[1] as string,
        originalHeaders: [
          "From: Quick Brew <newsletter@keydiscovery.com>",
          `To: ${people[1]}`,
          "Subject: Issue 3",
          `X-Herald-Delivery: ${arf.header}`,
        ],
      }),
    );
    const complained = await deliveryOf(campaign.id, people[1] as string);
    expect(complained?.complained_at).toBeTruthy();
    expect(complained?.feedback).toBe("ARF abuse from SomeGenerator/1.0");
    expect(await statusOf(people[1] as string)).toBe("complained");

    // The same DSN again counts once.
    await report(
      dsn.envelope,
      dsnMessage({ to: dsn.envelope, finalRecipient: people[0] as string }),
    );
    const events = await crossTenant(database.db)
      .selectFrom("campaign_events")
      .select("kind")
      .where("campaign_id", "=", campaign.id)
      .where("kind", "in", ["bounce", "complaint"])
      .orderBy("kind")
      .execute();
    expect(events.map((event) => event.kind)).toEqual(["bounce", "complaint"]);

    // The campaign report and the subscriber list show them.
    const reportPage = await page(`/admin/campaigns/${campaign.id}`);
    expect(reportPage).toMatch(/Bounces 1 /);
    expect(reportPage).toMatch(/Complaints 1 /);
    expect(reportPage).toContain("Bounces and complaints");
    expect(reportPage).toMatch(/dsn@example\.com Hard bounce/);
    expect(reportPage).toMatch(/arf@example\.com Complaint \(marked as spam\)/);
    // The bounces section names only them (the recipient list above it names everyone).
    expect(reportPage.slice(reportPage.lastIndexOf("Bounces and complaints"))).not.toContain(
      "spared@example.com",
    );
    expect(reportPage).toMatch(/spared@example\.com Delivered/);
    const bouncedList = await page("/admin/subscribers?status=bounced");
    expect(bouncedList).toContain("dsn@example.com");
    expect(bouncedList).not.toContain("arf@example.com");
    const complainedList = await page("/admin/subscribers?status=complained");
    expect(complainedList).toContain("arf@example.com");
    expect(complainedList).not.toContain("dsn@example.com");

    // Nobody who bounced or complained is mailed by the next campaign.
    const next = await sendCampaign("Issue 4");
    expect(await deliveryOf(next.id, people[0] as string)).toBeUndefined();
    expect(await deliveryOf(next.id, people[1] as string)).toBeUndefined();
    expect(await deliveryOf(next.id, people[2] as string)).toMatchObject({ status: "sent" });
  });

  it("stops the listener with the server on SIGTERM", async () => {
    await server.stop();
    expect(server.process.signalCode).toBeNull();
    expect(server.process.exitCode).toBe(0);
    await expect(
      report(`bounces+1.a@${BOUNCE_DOMAIN}`, "Subject: x\r\n\r\ny\r\n"),
    ).rejects.toMatchObject({ code: "ESOCKET" });
  });
});
