import { createHash, timingSafeEqual } from "node:crypto";
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { Counter, Histogram, Registry } from "prom-client";
import { LIMIT_COLUMNS } from "../shared/schemas/tenant-limits";
import { readBackupStatus } from "./backups/schedule";
import { sendQueueState } from "./campaigns/deliveries";
import type { Db } from "./db";
import { crossTenant } from "./db/tenant-guard";
import { countJobs, JOB_STATES, oldestWaitingAgeSeconds } from "./jobs/overview";
import { lazy } from "./lazy";
import { allTenantsUsage, type TenantUsageLines } from "./tenants/usage";

/*
 * What /metrics exposes (README, "Watching it run"; decision 032), in Prometheus' text format.
 * Counters live in this process: each instance exposes its own, and Prometheus adds them up.
 * The send queue, import jobs and the last backup are read from the database at scrape time, so
 * every instance answers the same for them. Labels stay few: a route's pattern (never its URL),
 * a status class, a tenant id only on the per-tenant mail series.
 *
 * Nothing is counted until startMetrics runs, which the web server does only with METRICS_TOKEN and
 * the worker only with METRICS_PORT: elsewhere nobody could read the counts, so prom-client is not
 * loaded, its default metrics (event-loop lag, GC) do not run, and each count* call is a no-op.
 */

/** test: a campaign's test send (decision 038), its own stream so no mail count includes it */
export type MailStream = "campaign" | "transactional" | "test";
export type MailOutcome = "sent" | "failed" | "retried";
export type FeedbackOutcomeKind = "bounced" | "complained";

interface Metrics {
  registry: Registry;
  requestDuration: Histogram<"route" | "method" | "status">;
  pageCache: Counter<"result">;
  mail: Record<MailOutcome, Counter<"tenant" | "stream">>;
  feedback: Record<FeedbackOutcomeKind, Counter<"tenant">>;
  importJobsFinished: Counter<"kind" | "status">;
  jobFailures: Counter<"kind">;
  /** the database the scrape-time gauges read; set by the runtime once it is open */
  db: Db | null;
}

// One registry per process, kept on globalThis: the dev server reloads modules, and a metric
// registered twice is an error.
const globalStore = globalThis as typeof globalThis & { __heraldMetrics?: Metrics };

const loadPromClient = lazy(() => import("prom-client"));

function createMetrics(prom: typeof import("prom-client")): Metrics {
  const { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } = prom;
  const registry = new Registry();
  // Event-loop lag, heap and resident memory, GC, handles: prom-client's standard set, under its
  // standard names (nodejs_*, process_*) so the usual Node.js dashboards read them as they are.
  collectDefaultMetrics({ register: registry });
  const metrics: Metrics = {
    registry,
    db: null,
    requestDuration: new Histogram({
      name: "herald_http_request_duration_seconds",
      help: "Time from a request's arrival to its answer, by route pattern, method and status class",
      labelNames: ["route", "method", "status"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    pageCache: new Counter({
      name: "herald_page_cache_requests_total",
      help: "Anonymous GETs the page cache could serve, by result: hit (served from memory) or miss",
      labelNames: ["result"],
      registers: [registry],
    }),
    mail: {
      sent: new Counter({
        name: "herald_mail_sent_total",
        help: "Messages the SMTP server accepted (or the outbox kept), by tenant and stream",
        labelNames: ["tenant", "stream"],
        registers: [registry],
      }),
      failed: new Counter({
        name: "herald_mail_failed_total",
        help: "Messages given up on (refused for good, or out of tries), by tenant and stream",
        labelNames: ["tenant", "stream"],
        registers: [registry],
      }),
      retried: new Counter({
        name: "herald_mail_retried_total",
        help: "Tries that failed for now and will be tried again later, by tenant and stream",
        labelNames: ["tenant", "stream"],
        registers: [registry],
      }),
    },
    feedback: {
      bounced: new Counter({
        name: "herald_mail_bounced_total",
        help: "Hard bounces recorded (a 5xx at send time or a bounce report), by tenant",
        labelNames: ["tenant"],
        registers: [registry],
      }),
      complained: new Counter({
        name: "herald_mail_complained_total",
        help: "Abuse complaints recorded, by tenant",
        labelNames: ["tenant"],
        registers: [registry],
      }),
    },
    importJobsFinished: new Counter({
      name: "herald_import_jobs_finished_total",
      help: "Import jobs this process finished, by kind and final status",
      labelNames: ["kind", "status"],
      registers: [registry],
    }),
    jobFailures: new Counter({
      name: "herald_job_failures_total",
      help: "Tries of background jobs that failed in this process (retried or given up), by kind",
      labelNames: ["kind"],
      registers: [registry],
    }),
  };
  jobGauges(prom, registry, () => metrics.db);
  new Gauge({
    name: "herald_backup_last_success_timestamp_seconds",
    help: "When the last backup succeeded (Unix time); 0 when none is known",
    registers: [registry],
    async collect() {
      const success = metrics.db && (await readBackupStatus(metrics.db)).lastSuccess;
      this.set(success ? Date.parse(success.at) / 1000 : 0);
    },
  });
  new Gauge({
    name: "herald_send_queue_messages",
    help: "Campaign messages waiting or being sent for campaigns that are sending",
    registers: [registry],
    async collect() {
      const state = await queueState();
      this.set(state?.depth ?? 0);
    },
  });
  new Gauge({
    name: "herald_send_queue_oldest_age_seconds",
    help: "How long the oldest due campaign message has waited to be sent; 0 when none is due",
    registers: [registry],
    async collect() {
      const state = await queueState();
      this.set(state?.oldestAgeSeconds ?? 0);
    },
  });
  new Gauge({
    name: "herald_import_jobs",
    help: "Subscriber import jobs in the database, by status",
    labelNames: ["status"],
    registers: [registry],
    async collect() {
      const db = metrics.db;
      if (!db) return;
      const rows = await crossTenant(db)
        .selectFrom("subscriber_imports")
        .select(["status", (eb) => eb.fn.countAll<number | string>().as("count")])
        .groupBy("status")
        .execute();
      this.reset();
      for (const status of ["queued", "running", "done", "failed"]) this.set({ status }, 0);
      for (const row of rows) this.set({ status: row.status }, Number(row.count));
    },
  });
  tenantUsageGauges(prom, registry);
  eventLoopDelayGauge(prom, registry);
  return metrics;
}

/**
 * Each tenant's usage and limits (decision 057), read at scrape time like the send queue: one
 * series per tenant and limit (six a tenant); an unlimited limit is -1.
 */
function tenantUsageGauges(prom: typeof import("prom-client"), registry: Registry): void {
  let read: { at: number; lines: Promise<TenantUsageLines> } | null = null;
  const lines = () => {
    const db = metrics()?.db;
    if (!db) return Promise.resolve([]);
    if (!read || Date.now() - read.at > 1_000)
      read = { at: Date.now(), lines: allTenantsUsage(db) };
    return read.lines;
  };
  for (const [name, help, pick] of [
    ["herald_tenant_usage", "What each tenant uses of each of its limits", "used"],
    ["herald_tenant_limit", "Each tenant's limits (-1: unlimited)", "limit"],
  ] as const) {
    new prom.Gauge({
      name,
      help,
      labelNames: ["tenant", "limit"],
      registers: [registry],
      async collect() {
        this.reset();
        for (const { tenant, key, used, limit } of await lines()) {
          const value = pick === "used" ? used : limit === "unlimited" ? -1 : limit;
          this.set({ tenant, limit: LIMIT_COLUMNS[key] }, value);
        }
      },
    });
  }
}

/**
 * How long timers waited for the event loop (perf_hooks.monitorEventLoopDelay, 10 ms resolution):
 * p50, p99 and max since the previous scrape, then the window starts again. A loop held by one
 * tenant's heavy work shows here before it shows in every other tenant's page times (issue 44).
 */
function eventLoopDelayGauge(prom: typeof import("prom-client"), registry: Registry): void {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  new prom.Gauge({
    name: "herald_event_loop_delay_seconds",
    help: "Event-loop delay since the previous scrape, by statistic: p50, p99 and max",
    labelNames: ["stat"],
    registers: [registry],
    collect() {
      // No sample yet (a scrape right after the last): 0, not the histogram's empty sentinels.
      const seconds = (nanoseconds: number) => (histogram.count > 0 ? nanoseconds / 1e9 : 0);
      this.set({ stat: "p50" }, seconds(histogram.percentile(50)));
      this.set({ stat: "p99" }, seconds(histogram.percentile(99)));
      this.set({ stat: "max" }, seconds(histogram.max));
      histogram.reset();
    },
  });
}

/** The job table (decision 056): jobs by kind and state, and how long the oldest due one waits. */
function jobGauges(
  prom: typeof import("prom-client"),
  registry: Registry,
  database: () => Db | null,
): void {
  new prom.Gauge({
    name: "herald_jobs",
    help: "Background jobs in the database, by kind and state",
    labelNames: ["kind", "state"],
    registers: [registry],
    async collect() {
      const db = database();
      if (!db) return;
      const counts = await countJobs(db);
      this.reset();
      const totals = new Map<string, number>();
      for (const { kind, state, count } of counts) {
        for (const each of JOB_STATES)
          totals.set(`${kind}\n${each}`, totals.get(`${kind}\n${each}`) ?? 0);
        totals.set(`${kind}\n${state}`, (totals.get(`${kind}\n${state}`) ?? 0) + count);
      }
      for (const [key, count] of totals) {
        const [kind = "", state = ""] = key.split("\n");
        this.set({ kind, state }, count);
      }
    },
  });
  new prom.Gauge({
    name: "herald_jobs_oldest_waiting_age_seconds",
    help: "How long the oldest due background job has waited past its time; 0 when none is due",
    registers: [registry],
    async collect() {
      const db = database();
      this.set(db ? await oldestWaitingAgeSeconds(db) : 0);
    },
  });
}

/** The metrics once started; undefined before (and always where /metrics cannot be read). */
function metrics(): Metrics | undefined {
  return globalStore.__heraldMetrics;
}

/**
 * Starts counting (loads prom-client, makes the registry), with the database the scrape-time
 * series read: server/runtime.ts with METRICS_TOKEN, `herald worker` with METRICS_PORT.
 */
export async function startMetrics(db: Db | null): Promise<void> {
  const prom = await loadPromClient();
  globalStore.__heraldMetrics ??= createMetrics(prom);
  if (db) globalStore.__heraldMetrics.db = db;
}

/** Both queue gauges read one query per scrape: the first asks, the second shares its answer. */
let queueRead: {
  at: number;
  state: Promise<Awaited<ReturnType<typeof sendQueueState>> | null>;
} | null = null;
function queueState() {
  const db = metrics()?.db;
  if (!db) return Promise.resolve(null);
  if (!queueRead || Date.now() - queueRead.at > 1_000) {
    queueRead = { at: Date.now(), state: sendQueueState(db, new Date()) };
  }
  return queueRead.state;
}

/**
 * One observation per answered request (server/http/app.ts, and the refusals before routing in
 * server/http/security.ts, as route "unmatched"): the whole cost on the hot path.
 */
export function observeRequest(
  route: string,
  method: string,
  status: number,
  seconds: number,
): void {
  metrics()?.requestDuration.observe(
    {
      route,
      method: OBSERVED_METHODS.has(method) ? method : "other",
      status: STATUS_CLASSES[Math.floor(status / 100)] ?? "other",
    },
    seconds,
  );
}
const STATUS_CLASSES = ["other", "1xx", "2xx", "3xx", "4xx", "5xx"];
/** Methods the histogram names; any other is "other" (a label must stay bounded). */
const OBSERVED_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

export function countPageCache(result: "hit" | "miss"): void {
  metrics()?.pageCache.inc({ result });
}

/** A message's outcome: handed over, given up on, or to be tried again. Null tenant: "none". */
export function countMail(outcome: MailOutcome, tenantId: string | null, stream: MailStream): void {
  metrics()?.mail[outcome].inc({ tenant: tenantId ?? "none", stream });
}

export function countFeedback(kind: FeedbackOutcomeKind, tenantId: string): void {
  metrics()?.feedback[kind].inc({ tenant: tenantId });
}

/**
 * For importers (CSV, Ghost, Substack, MailerLite, tenant moves): call once when a job ends.
 * `kind` is a short fixed word ("csv", "ghost"…), `status` "done" or "failed".
 */
export function recordImportJob(kind: string, status: "done" | "failed"): void {
  metrics()?.importJobsFinished.inc({ kind, status });
}

/** A background job's try failed (server/jobs/runner.ts). */
export function countJobFailure(kind: string): void {
  metrics()?.jobFailures.inc({ kind });
}

/** The exposition, and the content type to answer it with. */
export async function renderMetrics(): Promise<{ body: string; contentType: string }> {
  await startMetrics(null);
  const { registry } = metrics() as Metrics;
  return { body: await registry.metrics(), contentType: registry.contentType };
}

/**
 * Whether `authorization` carries METRICS_TOKEN as a bearer token. Both sides are hashed first,
 * so the comparison takes the same time whatever the length or content of a wrong guess.
 */
export function metricsTokenMatches(authorization: string | null, token: string): boolean {
  const match = /^Bearer (.+)$/i.exec(authorization ?? "");
  if (!match?.[1]) return false;
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(match[1]), digest(token));
}
