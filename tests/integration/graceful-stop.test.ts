import { spawn } from "node:child_process";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { connect } from "node:net";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCampaign } from "../../server/campaigns/campaigns";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { outboxTransport } from "../../server/mail/transport";
import { seedTenants } from "../../server/tenants/seed";
import { getTenant } from "../../server/tenants/store";
import { recipientsOf, seedAudience, waitForStatus } from "../support/campaigns";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { freePort, type RunningServer, startServer } from "../support/server";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink";
import { scaled } from "../support/timing";

// Issue 33, target 5: SIGTERM during a campaign. The server stops taking requests, lets the one in
// flight finish, stops the sender, hands back its claims and exits within 10 s; a new process
// finishes the campaign: nobody missed, repeats only for the messages in flight at the stop.

const SECRET = "graceful-stop-secret-graceful-stop-secret-01";
const SEND_CONCURRENCY = 4;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 20 ms until it is true, for `ms` of a quiet machine. */
async function until(what: string, check: () => boolean | Promise<boolean>, ms = 30_000) {
  const deadline = Date.now() + scaled(ms);
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${scaled(ms)} ms`);
    await pause(20);
  }
}

/** Whether a new TCP connection to the port is refused (the server no longer listens). */
function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"));
  });
}

/**
 * A POST whose headers the server has (it answered 100 Continue) and whose body it waits for:
 * a request in flight for as long as the test likes.
 */
function requestInFlight(port: number) {
  // The address it is sent to, so that it is not a cross-site write (refused before its body).
  const origin = `http://127.0.0.1:${port}`;
  const body = new URLSearchParams({ email: "nobody@example.com", password: "wrong" }).toString();
  const request = httpRequest({
    host: "127.0.0.1",
    port,
    method: "POST",
    path: "/admin/login",
    headers: {
      expect: "100-continue",
      origin,
      "content-type": "application/x-www-form-urlencoded",
      "content-length": Buffer.byteLength(body),
    },
  });
  const continued = new Promise<void>((resolve) => request.once("continue", () => resolve()));
  const connectionClosed = new Promise<void>((resolve) =>
    request.once("socket", (socket) => socket.once("close", () => resolve())),
  );
  const answered = new Promise<{ response: IncomingMessage; text: string }>((resolve, reject) => {
    request.once("error", reject);
    request.once("response", (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => {
        text += chunk;
      });
      response.once("end", () => resolve({ response, text }));
    });
  });
  request.flushHeaders();
  return {
    continued,
    connectionClosed,
    finish() {
      request.end(body);
      return answered;
    },
  };
}

describe.each(testDialects())("a graceful stop on %s", (dialect) => {
  let database: TestDatabase;
  let sink: SmtpSink;
  const servers: RunningServer[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    sink = await startSmtpSink();
  });

  afterAll(async () => {
    for (const server of servers) await server.stop();
    await sink?.stop();
    await database?.drop();
  });

  const start = async () => {
    const server = await startServer({
      databaseUrl: database.url,
      env: {
        SMTP_URL: sink.url,
        SESSION_SECRET: SECRET,
        SEND_RATE: "0",
        SEND_CONCURRENCY: String(SEND_CONCURRENCY),
      },
    });
    servers.push(server);
    return server;
  };

  const deliveriesIn = async (status: string) =>
    Number(
      (
        await crossTenant(database.db)
          .selectFrom("deliveries")
          .select((eb) => eb.fn.countAll<number | string>().as("count"))
          .where("status", "=", status as "sending")
          .executeTakeFirstOrThrow()
      ).count,
    );

  it(
    "SIGTERM mid-campaign: no new requests, the one in flight answered, claims handed back, exit within 10 s; a new process finishes with nobody missed",
    async () => {
      const { expected, lists } = await seedAudience(database.db, 300, "g");
      const first = await start();
      // A slowed SMTP server: 10 ms before each message's 250.
      sink.delay = () => pause(10);
      const campaign = await createCampaign(
        {
          db: database.db,
          logger: pino({ level: "silent" }),
          transport: outboxTransport(),
          tenant: (await getTenant(database.db, "main")).config,
          origin: first.url,
          sessionSecret: SECRET,
        },
        { subject: "Stopping issue", content: "<p>Hello.</p>", groups: lists },
        null,
      );
      await until("a quarter of the campaign sent", () => recipientsOf(sink, "g").length >= 75);

      // From here the SMTP server stalls: the messages in flight at the stop never get their 250
      // from this process (the sink has them: they are the ones that may go out twice).
      let unstall = () => {};
      const stalled = new Promise<void>((resolve) => {
        unstall = resolve;
      });
      sink.delay = () => stalled;
      await until("every runner waiting on the SMTP server", () => sink.held >= SEND_CONCURRENCY);
      // A sign-in before the stop: the sign-in limits' store is in use (on PostgreSQL, a pool).
      const before = requestInFlight(first.port);
      await before.continued;
      expect((await before.finish()).response.statusCode).toBeLessThan(500);
      const inFlight = requestInFlight(first.port);
      await inFlight.continued;

      const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
        first.process.once("exit", (code) => resolve({ code, at: Date.now() })),
      );
      const signalledAt = Date.now();
      first.process.kill("SIGTERM");

      // It takes no new connection while it is still finishing the request in flight.
      await until("new connections refused", () => refusesConnections(first.port), 10_000);
      expect(first.process.exitCode).toBeNull();
      // The request's body comes only once the sender has given up waiting for its stalled
      // messages: what requests use (the shared rate-limit store, on PostgreSQL) must still be open.
      await until("the sender's drain over", () =>
        first.output().includes("campaign worker stopped with messages still in flight"),
      );
      const { response, text } = await inFlight.finish();
      expect(response.statusCode).toBeLessThan(500);
      expect(text).toContain("</html>");
      // Its keep-alive connection is closed once idle, not kept until the process ends.
      await inFlight.connectionClosed;
      expect(first.process.exitCode).toBeNull();

      const { code, at } = await Promise.race([
        exited,
        pause(scaled(15_000)).then(() => ({ code: -1, at: Number.POSITIVE_INFINITY })),
      ]);
      expect(code).toBe(0);
      expect(at - signalledAt).toBeLessThan(scaled(10_000));
      // Every claim was handed back: nothing waits for a claim to go stale.
      expect(await deliveriesIn("sending")).toBe(0);
      const atStop = recipientsOf(sink, "g").length;
      expect(atStop).toBeLessThan(expected.length);
      expect(await deliveriesIn("pending")).toBeGreaterThan(0);

      sink.delay = () => undefined;
      unstall();
      const second = await start();
      const done = await waitForStatus(database.db, campaign.id, ["sent"], 60_000);
      expect(done.status).toBe("sent");
      const received = recipientsOf(sink, "g");
      expect([...new Set(received)].sort()).toEqual(expected);
      // Only the messages in flight at the stop went out twice.
      expect(received.length - expected.length).toBeLessThanOrEqual(SEND_CONCURRENCY);
      await second.stop();
      expect(second.process.exitCode).toBe(0);
    },
    scaled(120_000),
  );

  it(
    "herald worker: its own /metrics on METRICS_PORT counts its sends, and SIGTERM stops it within 10 s",
    async () => {
      const { lists } = await seedAudience(database.db, 40, "w");
      const metricsPort = await freePort();
      const token = "worker-metrics-token-0123456789";
      const worker = spawn(process.execPath, ["--import", "tsx", "cli/herald.ts", "worker"], {
        env: {
          ...process.env,
          DATABASE_URL: database.url,
          SMTP_URL: sink.url,
          SEND_RATE: "0",
          SEND_CONCURRENCY: String(SEND_CONCURRENCY),
          SESSION_SECRET: SECRET,
          METRICS_PORT: String(metricsPort),
          METRICS_TOKEN: token,
          LOG_LEVEL: "warn",
        },
        stdio: "ignore",
      });
      const exited = new Promise<number | null>((resolve) => worker.once("exit", resolve));
      try {
        const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
        const scrape = () =>
          fetch(metricsUrl, { headers: { authorization: `Bearer ${token}` } }).catch(() => null);
        await until("the worker's /metrics answering", async () => (await scrape())?.ok === true);
        expect((await fetch(metricsUrl)).status).toBe(401);
        expect((await fetch(`http://127.0.0.1:${metricsPort}/other`)).status).toBe(404);

        const campaign = await createCampaign(
          {
            db: database.db,
            logger: pino({ level: "silent" }),
            transport: outboxTransport(),
            tenant: (await getTenant(database.db, "main")).config,
            origin: "http://localhost:3000",
            sessionSecret: SECRET,
          },
          { subject: "Worker issue", content: "<p>Hello.</p>", groups: lists },
          null,
        );
        await waitForStatus(database.db, campaign.id, ["sent"], 60_000);
        const sent = Number(
          (
            await crossTenant(database.db)
              .selectFrom("deliveries")
              .select((eb) => eb.fn.countAll<number | string>().as("count"))
              .where("campaign_id", "=", campaign.id)
              .where("status", "=", "sent")
              .executeTakeFirstOrThrow()
          ).count,
        );
        expect(sent).toBeGreaterThanOrEqual(40);
        const text = await (await scrape())?.text();
        expect(text).toContain(`herald_mail_sent_total{tenant="main",stream="campaign"} ${sent}`);
        // The worker's event loop is measured too (issue 44): p50, p99 and max since the last scrape.
        for (const stat of ["p50", "p99", "max"]) {
          expect(text).toMatch(
            new RegExp(`^herald_event_loop_delay_seconds\\{stat="${stat}"\\} \\d`, "m"),
          );
        }

        const signalledAt = Date.now();
        worker.kill("SIGTERM");
        const code = await Promise.race([exited, pause(scaled(15_000)).then(() => -1)]);
        expect(code).toBe(0);
        expect(Date.now() - signalledAt).toBeLessThan(scaled(10_000));
      } finally {
        worker.kill("SIGKILL");
      }
    },
    scaled(120_000),
  );
});
