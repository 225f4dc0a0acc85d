import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getCampaignRow } from "../../server/campaigns/campaign-row";
import { createCampaign } from "../../server/campaigns/campaigns";
import { migrateToLatest } from "../../server/db/migrate";
import { outboxTransport } from "../../server/mail/transport";
import { seedTenants } from "../../server/tenants/seed";
import { getTenant } from "../../server/tenants/store";
import { SECRET, seedAudience } from "../support/campaigns";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { type RunningServer, startServer } from "../support/server";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink";
import { scaled } from "../support/timing";

// Issue 44, target 3: transactional mail (sign-up mail here) never queues behind a campaign. The
// sink holds every campaign message's 250 until the test lets go: the campaign is in full flight,
// every connection it may use busy. With one pool for both, what was left to all other mail was
// the pool's one spare connection: a single slow message there (held too, below) and every
// sign-up queued until a campaign message let go. Mail of its own transport has lanes of its own.
const SEND_CONCURRENCY = 3;

describe.each(testDialects())("transactional mail beside a campaign on %s", (dialect) => {
  let database: TestDatabase;
  let sink: SmtpSink;
  let server: RunningServer;
  let release: () => void = () => {};

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    sink = await startSmtpSink();
    server = await startServer({
      databaseUrl: database.url,
      env: {
        SMTP_URL: sink.url,
        SESSION_SECRET: SECRET,
        SEND_RATE: "0",
        SEND_CONCURRENCY: String(SEND_CONCURRENCY),
      },
    });
  }, scaled(60_000));

  afterAll(async () => {
    release();
    await server?.stop();
    await sink?.stop();
    await database?.drop();
  });

  it(
    "reaches the inbox while a stalled campaign holds all of the sender's connections",
    async () => {
      const { db } = database;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      sink.delay = ({ to }) =>
        to.some((address) => address.startsWith("stalled-") || address.startsWith("slow-"))
          ? held
          : undefined;
      const { lists } = await seedAudience(db, 40, "stalled");
      const campaign = await createCampaign(
        {
          db,
          logger: pino({ level: "silent" }),
          transport: outboxTransport(),
          tenant: (await getTenant(db, "main")).config,
          origin: server.url,
          sessionSecret: SECRET,
        },
        { subject: "Stalled issue", content: "<p>Held.</p>", groups: lists },
        null,
      );
      // The campaign in full flight: as many messages held at the sink as it may send at once.
      const deadline = Date.now() + scaled(20_000);
      while (sink.held < SEND_CONCURRENCY) {
        if (Date.now() > deadline) throw new Error(`only ${sink.held} campaign messages in flight`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }

      const signUp = (email: string, visitor: number) =>
        fetch(`${server.url}/newsletter/subscribe`, {
          method: "POST",
          body: new URLSearchParams({ email }),
          headers: { cookie: "herald_subdomain=main", "x-forwarded-for": `203.0.113.${visitor}` },
          redirect: "manual",
        });
      // One sign-up whose mail is slow to be accepted (held like the campaign's)…
      const slow = signUp("slow-visitor@example.com", 1);
      while (sink.held < SEND_CONCURRENCY + 1) {
        if (Date.now() > deadline)
          throw new Error("the slow sign-up's mail never reached the sink");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // …and then visitors sign up: their mail must not wait for the campaign.
      const visitors = Array.from({ length: 3 }, (_, index) => `visitor-${index}@example.com`);
      const signUps = visitors.map((email, index) => signUp(email, index + 2));
      for (const email of visitors) await sink.waitFor((mail) => mail.to.includes(email));
      for (const response of await Promise.all(signUps)) expect(response.status).toBe(303);
      // …all of it while the campaign was still stalled.
      expect(sink.held).toBe(SEND_CONCURRENCY + 1);
      expect((await getCampaignRow(db, "main", campaign.id)).status).toBe("sending");

      release();
      expect((await slow).status).toBe(303);
      const finishBy = Date.now() + scaled(30_000);
      while ((await getCampaignRow(db, "main", campaign.id)).status !== "sent") {
        if (Date.now() > finishBy) throw new Error("the campaign did not finish once let go");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    scaled(60_000),
  );
});
