import nodemailer from "nodemailer";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKUP_SUCCESS_SETTING } from "../../server/backups/schedule";
import { createCampaign } from "../../server/campaigns/campaigns";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { outboxTransport } from "../../server/mail/transport";
import { createNewsletter } from "../../server/newsletters/editing";
import { publishNewsletter } from "../../server/newsletters/newsletters";
import { deleteSetting, writeSetting } from "../../server/settings";
import { queueImport } from "../../server/subscribers/imports";
import type { SubscriptionContext } from "../../server/subscribers/subscribers";
import { seedTenants } from "../../server/tenants/seed";
import { getTenant } from "../../server/tenants/store";
import { createStaffUser, signIn } from "../support/auth";
import { seedAudience, waitForStatus } from "../support/campaigns";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { postForm } from "../support/forms";
import { arfMessage, dsnMessage } from "../support/reports";
import { freePort, type RunningServer, startServer } from "../support/server";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink";
import { scaled } from "../support/timing";

// Issue 33, target 4: /metrics in Prometheus' text format, read the way Prometheus reads it, with
// counters moved by real requests, real sends through the SMTP sink and real bounce reports.

const SECRET = "metrics-test-secret-metrics-test-secret-0123";
const TOKEN = "metrics-test-token-0123456789";
const BOUNCE_DOMAIN = "bounces.herald.test";

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus' text exposition format 0.0.4: every sample line, with each family's TYPE. */
function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      types.set(type[1] as string, type[2] as string);
      continue;
    }
    if (line.startsWith("#")) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (sample[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[name as string] = (value as string).replace(/\\(.)/g, (_, c) =>
        c === "n" ? "\n" : c,
      );
    }
    const raw = sample[3] as string;
    const value = raw === "+Inf" ? Infinity : raw === "-Inf" ? -Infinity : Number(raw);
    // Prometheus reads NaN in any case (Go's ParseFloat); prom-client writes "Nan".
    if (Number.isNaN(value) && raw.toLowerCase() !== "nan") throw new Error(`not a value: ${line}`);
    samples.push({ name: sample[1] as string, labels, value });
  }
  return { samples, types };
}

/** The sum of `name`'s samples whose labels include `labels` (0 when there is none). */
function sampleSum(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter(
      (sample) =>
        sample.name === name &&
        Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    )
    .reduce((sum, sample) => sum + sample.value, 0);
}

describe.each(testDialects())("/metrics on %s", (dialect) => {
  let database: TestDatabase;
  let sink: SmtpSink;
  let server: RunningServer;
  let bouncePort = 0;
  let ctx: SubscriptionContext;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    sink = await startSmtpSink();
    bouncePort = await freePort();
    server = await startServer({
      databaseUrl: database.url,
      env: {
        METRICS_TOKEN: TOKEN,
        SMTP_URL: sink.url,
        SESSION_SECRET: SECRET,
        SEND_RATE: "0",
        SEND_CONCURRENCY: "4",
        // One retry after a second: a 4xx that persists is retried once, then failed.
        SEND_RETRY_DELAYS: "1s",
        BOUNCE_SMTP_PORT: String(bouncePort),
        BOUNCE_DOMAIN,
      },
    });
    ctx = {
      db: database.db,
      logger: pino({ level: "silent" }),
      transport: outboxTransport(),
      tenant: (await getTenant(database.db, "main")).config,
      origin: server.url,
      sessionSecret: SECRET,
    };
  }, scaled(60_000));

  afterAll(async () => {
    await server?.stop();
    await sink?.stop();
    await database?.drop();
  });

  const scrapeText = async () => {
    const response = await fetch(`${server.url}/metrics`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(response.status).toBe(200);
    return response;
  };
  const scrape = async () => parseExposition(await (await scrapeText()).text()).samples;
  /** Scrapes until `done` holds (or a while has passed): a count moves once the SMTP answer is in. */
  const scrapeUntil = async (done: (samples: Sample[]) => boolean) => {
    let samples = await scrape();
    const deadline = Date.now() + scaled(10_000);
    while (!done(samples) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      samples = await scrape();
    }
    return samples;
  };

  it("answers 404 without METRICS_TOKEN, 401 without the token or with a wrong one, and the exposition with it", async () => {
    // Another instance on the same database, without a token: the route is not there.
    const bare = await startServer({
      databaseUrl: database.url,
      env: { SESSION_SECRET: SECRET, SEND_WORKER: "off" },
    });
    try {
      const response = await fetch(`${bare.url}/metrics`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(response.status).toBe(404);
      expect(await response.text()).not.toContain("herald_");
    } finally {
      await bare.stop();
    }

    for (const authorization of [
      undefined,
      "",
      `Bearer ${TOKEN.slice(0, -1)}x`,
      `Bearer ${TOKEN}x`,
      `Basic ${Buffer.from(`x:${TOKEN}`).toString("base64")}`,
      TOKEN,
    ]) {
      const response = await fetch(`${server.url}/metrics`, {
        headers: authorization === undefined ? {} : { authorization },
      });
      expect(response.status, `authorization: ${authorization}`).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(await response.text()).not.toContain("herald_");
    }

    const response = await scrapeText();
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const { samples, types } = parseExposition(await response.text());
    expect(Object.fromEntries([...types].filter(([name]) => name.startsWith("herald_")))).toEqual({
      herald_http_request_duration_seconds: "histogram",
      herald_page_cache_requests_total: "counter",
      herald_mail_sent_total: "counter",
      herald_mail_failed_total: "counter",
      herald_mail_retried_total: "counter",
      herald_mail_bounced_total: "counter",
      herald_mail_complained_total: "counter",
      herald_import_jobs_finished_total: "counter",
      herald_backup_last_success_timestamp_seconds: "gauge",
      herald_send_queue_messages: "gauge",
      herald_send_queue_oldest_age_seconds: "gauge",
      herald_import_jobs: "gauge",
      herald_event_loop_delay_seconds: "gauge",
      // Each tenant's usage and limits (decision 057; tests/integration/tenant-limits.test.ts).
      herald_tenant_usage: "gauge",
      herald_tenant_limit: "gauge",
      herald_job_failures_total: "counter",
      herald_jobs: "gauge",
      herald_jobs_oldest_waiting_age_seconds: "gauge",
    });
    // Event-loop delay since the previous scrape (issue 44): p50 ≤ p99 ≤ max, each a real wait.
    const delay = (stat: string) => sampleSum(samples, "herald_event_loop_delay_seconds", { stat });
    expect(delay("p50")).toBeGreaterThan(0);
    expect(delay("p50")).toBeLessThanOrEqual(delay("p99"));
    expect(delay("p99")).toBeLessThanOrEqual(delay("max"));
    expect(delay("max")).toBeLessThan(60);
    // The process: event-loop lag and memory (prom-client's default metrics).
    expect(types.get("nodejs_eventloop_lag_seconds")).toBe("gauge");
    expect(sampleSum(samples, "process_resident_memory_bytes")).toBeGreaterThan(10_000_000);
    expect(sampleSum(samples, "nodejs_heap_size_used_bytes")).toBeGreaterThan(1_000_000);
    expect(sampleSum(samples, "herald_import_jobs", { status: "queued" })).toBe(0);
    expect(sampleSum(samples, "herald_backup_last_success_timestamp_seconds")).toBe(0);
    // The job runner beside the sender keeps the hourly purge's row (decision 056).
    expect(sampleSum(samples, "herald_jobs", { kind: "purge" })).toBe(1);
  });

  it("times each answer under its route pattern, never its URL, and counts page-cache hits and misses", async () => {
    const before = await scrape();
    const first = await fetch(`${server.url}/privacy`);
    expect(first.headers.get("x-page-cache")).toBe("miss");
    const second = await fetch(`${server.url}/privacy`);
    expect(second.headers.get("x-page-cache")).toBe("hit");
    const refused = await fetch(`${server.url}/admin/subscribers/73519`, { redirect: "manual" });
    expect(refused.status).toBe(302);
    const missing = await fetch(`${server.url}/no/such/page/84620`);
    expect(missing.status).toBe(404);
    // Refused before any route is matched: a cross-site write.
    const crossSite = await fetch(`${server.url}/contact`, {
      method: "POST",
      headers: {
        origin: "https://evil.example",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: "name=x",
    });
    expect(crossSite.status).toBe(403);
    const after = await scrape();

    const count = (samples: Sample[], labels: Record<string, string>) =>
      sampleSum(samples, "herald_http_request_duration_seconds_count", labels);
    const grew = (labels: Record<string, string>) => count(after, labels) - count(before, labels);
    // The hit is counted under the pattern of the render it repeats.
    expect(grew({ route: "/privacy", method: "GET", status: "2xx" })).toBe(2);
    expect(grew({ route: "/admin/subscribers/:id", method: "GET", status: "3xx" })).toBe(1);
    expect(grew({ route: "/*", method: "GET", status: "4xx" })).toBe(1);
    expect(grew({ route: "unmatched", method: "POST", status: "4xx" })).toBe(1);
    const buckets = after.filter(
      (sample) =>
        sample.name === "herald_http_request_duration_seconds_bucket" &&
        sample.labels.route === "/privacy",
    );
    expect(buckets.find((sample) => sample.labels.le === "+Inf")?.value).toBeGreaterThanOrEqual(2);
    // Low cardinality: no URL in a label, and the scrapes themselves are not timed.
    const routes = new Set(after.map((sample) => sample.labels.route).filter(Boolean));
    expect([...routes].filter((route) => /\d{5}/.test(route as string))).toEqual([]);
    expect(routes.has("/metrics")).toBe(false);

    const cache = (samples: Sample[], result: string) =>
      sampleSum(samples, "herald_page_cache_requests_total", { result });
    expect(cache(after, "miss") - cache(before, "miss")).toBe(1);
    expect(cache(after, "hit") - cache(before, "hit")).toBe(1);
  });

  it(
    "counts real sends per tenant — sent, retried, failed, bounced, complained — and the queue while a campaign waits",
    async () => {
      // More recipients than one claim (200), so some wait pending while the first batch is held.
      const { expected, lists } = await seedAudience(database.db, 210, "m");
      const hardBounce = "m-1@example.com";
      const deferred = "m-2@example.com";
      sink.answer = (to) => (to === hardBounce ? 550 : to === deferred ? 451 : undefined);
      let release = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      sink.delay = () => gate;
      const before = await scrape();
      const campaign = await createCampaign(
        ctx,
        { subject: "Metrics issue", content: "<p>Counted.</p>", groups: lists },
        null,
      );

      // The SMTP server holds every message: the queue is seen waiting, and ageing.
      const deadline = Date.now() + scaled(30_000);
      let waiting: Sample[] = [];
      while (Date.now() < deadline) {
        waiting = await scrape();
        if (
          sink.held >= 4 &&
          sampleSum(waiting, "herald_send_queue_oldest_age_seconds") > 0 &&
          sampleSum(waiting, "herald_send_queue_messages") > 200
        ) {
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(sampleSum(waiting, "herald_send_queue_messages")).toBeGreaterThan(200);
      expect(sampleSum(waiting, "herald_send_queue_messages")).toBeLessThanOrEqual(210);
      expect(sampleSum(waiting, "herald_send_queue_oldest_age_seconds")).toBeGreaterThan(0);
      sink.delay = () => undefined;
      release();

      await waitForStatus(database.db, campaign.id, ["sent"], 60_000);
      const sent = await scrape();
      const grew = (name: string, labels: Record<string, string>) =>
        sampleSum(sent, name, labels) - sampleSum(before, name, labels);
      const main = { tenant: "main", stream: "campaign" };
      expect(grew("herald_mail_sent_total", main)).toBe(expected.length - 2);
      expect(grew("herald_mail_failed_total", main)).toBe(2);
      expect(grew("herald_mail_retried_total", main)).toBe(1);
      expect(grew("herald_mail_bounced_total", { tenant: "main" })).toBe(1);
      expect(grew("herald_mail_complained_total", { tenant: "main" })).toBe(0);
      // Per tenant: nothing moved for the others.
      const others = (samples: Sample[]) =>
        samples
          .filter((sample) => sample.name.startsWith("herald_mail_"))
          .filter((sample) => sample.labels.tenant !== "main")
          .reduce((sum, sample) => sum + sample.value, 0);
      expect(others(sent)).toBe(others(before));
      expect(sampleSum(sent, "herald_send_queue_messages")).toBe(0);
      expect(sampleSum(sent, "herald_send_queue_oldest_age_seconds")).toBe(0);

      // Reports that come back later: a DSN bounces, an ARF complains.
      const verpOf = (email: string) => {
        const mail = sink.messages.find(
          (m) => m.to.includes(email) && m.subject === "Metrics issue",
        );
        if (!mail) throw new Error(`no mail to ${email}`);
        return { envelope: mail.from, header: mail.headers.get("x-herald-delivery") ?? "" };
      };
      const report = async (to: string, raw: string) => {
        const transport = nodemailer.createTransport({
          host: "127.0.0.1",
          port: bouncePort,
          ignoreTLS: true,
        });
        try {
          await transport.sendMail({ envelope: { from: "MAILER-DAEMON@mx.example.net", to }, raw });
        } finally {
          transport.close();
        }
      };
      const bounced = verpOf("m-5@example.com");
      await report(
        bounced.envelope,
        dsnMessage({ to: bounced.envelope, finalRecipient: "m-5@example.com" }),
      );
      // The same report twice counts once, as the campaign's report does.
      await report(
        bounced.envelope,
        dsnMessage({ to: bounced.envelope, finalRecipient: "m-5@example.com" }),
      );
      const fbl = `bounces+fbl@${BOUNCE_DOMAIN}`;
      await report(
        fbl,
        arfMessage({
          to: fbl,
          originalRcptTo: "m-6@example.com",
          originalHeaders: [
            "From: Herald <newsletter@example.com>",
            "To: m-6@example.com",
            "Subject: Metrics issue",
            `X-Herald-Delivery: ${verpOf("m-6@example.com").header}`,
          ],
        }),
      );
      const reported = await scrape();
      const since = (name: string) =>
        sampleSum(reported, name, { tenant: "main" }) - sampleSum(before, name, { tenant: "main" });
      expect(since("herald_mail_bounced_total")).toBe(2);
      expect(since("herald_mail_complained_total")).toBe(1);
    },
    scaled(120_000),
  );

  it("reads import jobs by status and the last backup from the database at scrape time", async () => {
    const before = await scrape();
    const jobId = await queueImport(
      ctx,
      "staff@example.com",
      "metrics.csv",
      "email\nimported-1@example.com\nimported-2@example.com\n",
    );
    expect(jobId).toBeGreaterThan(0);
    // The server's import worker runs it: the gauge follows the job's row to "done".
    const done = (samples: Sample[]) =>
      sampleSum(samples, "herald_import_jobs", { status: "done" });
    // …and the worker counts the job it finished, by the file's source.
    const finished = (samples: Sample[]) =>
      sampleSum(samples, "herald_import_jobs_finished_total", { kind: "herald", status: "done" });
    let after = await scrape();
    const deadline = Date.now() + scaled(20_000);
    while (
      (done(after) === done(before) || finished(after) === finished(before)) &&
      Date.now() < deadline
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await scrape();
    }
    expect(done(after) - done(before)).toBe(1);
    expect(finished(after) - finished(before)).toBe(1);
    const jobs = await crossTenant(database.db)
      .selectFrom("subscriber_imports")
      .select((eb) => eb.fn.countAll<number | string>().as("count"))
      .executeTakeFirstOrThrow();
    expect(sampleSum(after, "herald_import_jobs")).toBe(Number(jobs.count));

    // A backup recorded by whichever process ran it (the settings row it writes).
    const at = "2026-11-27T05:00:00.000Z";
    await writeSetting(
      database.db,
      BACKUP_SUCCESS_SETTING,
      JSON.stringify({ at, dir: "/b", bytes: 1 }),
    );
    expect(sampleSum(await scrape(), "herald_backup_last_success_timestamp_seconds")).toBe(
      Date.parse(at) / 1000,
    );
    // A row that is not what a backup writes is not a time, and not an error either.
    await writeSetting(database.db, BACKUP_SUCCESS_SETTING, "not json");
    expect(sampleSum(await scrape(), "herald_backup_last_success_timestamp_seconds")).toBe(0);
    await deleteSetting(database.db, BACKUP_SUCCESS_SETTING);
  });

  it("counts other mail (a sign-up's confirmation) as the tenant's transactional stream", async () => {
    const before = await scrape();
    const response = await fetch(`${server.url}/newsletter/subscribe`, {
      method: "POST",
      body: new URLSearchParams({ email: "metrics-signup@example.com" }),
      headers: { "x-forwarded-for": "198.51.100.33" },
      redirect: "manual",
    });
    expect(response.status).toBe(303);
    await sink.waitFor((mail) => mail.to.includes("metrics-signup@example.com"));
    // Counted once the server has recorded the SMTP server's answer, just after the sink has it.
    const labels = { tenant: "main", stream: "transactional" };
    const sentSince = (samples: Sample[]) =>
      sampleSum(samples, "herald_mail_sent_total", labels) -
      sampleSum(before, "herald_mail_sent_total", labels);
    const after = await scrapeUntil((samples) => sentSince(samples) > 0);
    expect(sentSince(after)).toBe(1);
    expect(
      sampleSum(after, "herald_http_request_duration_seconds_count", {
        route: "/newsletter/subscribe",
        method: "POST",
        status: "3xx",
      }),
    ).toBeGreaterThanOrEqual(1);
  });

  it("counts a campaign's test send in its own stream, never as transactional mail (decision 044)", async () => {
    const editor = await createStaffUser(database.db, {
      email: "metrics-editor@example.com",
      products: { main: true },
    });
    const cookie = await signIn(server.url, editor.email);
    const scope = { db: database.db, tenantId: "main", authorId: null };
    const { id } = await createNewsletter(scope, {
      title: "Metrics test send",
      excerpt: "A test",
      content: "<p>Test.</p>",
      readTime: 1,
    });
    await publishNewsletter(scope, id);
    const before = await scrape();
    const response = await postForm(
      server.url,
      `/admin/newsletter/send/${id}`,
      {
        subject: "Metrics test send",
        lists: ["newsletter"],
        mode: "now",
        intent: "test",
        testRecipients: "metrics-test-send@example.com",
      },
      cookie,
    );
    expect(response.status).toBe(200);
    await sink.waitFor((mail) => mail.to.includes("metrics-test-send@example.com"));
    const since = (samples: Sample[], stream: string) =>
      sampleSum(samples, "herald_mail_sent_total", { tenant: "main", stream }) -
      sampleSum(before, "herald_mail_sent_total", { tenant: "main", stream });
    const after = await scrapeUntil((samples) => since(samples, "test") > 0);
    expect(since(after, "test")).toBe(1);
    expect(since(after, "transactional")).toBe(0);
    expect(since(after, "campaign")).toBe(0);
  });
});
