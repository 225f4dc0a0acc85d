/**
 * Neighbours benchmark (issue 44, target 3): `npm run bench:neighbours`.
 *
 * On one instance (SQLite), then on two web instances and a `herald worker` with PostgreSQL and
 * Redis (when BENCH_DATABASE_URL or TEST_DATABASE_URL names a PostgreSQL server; BENCH_REDIS_URL
 * or TEST_REDIS_URL, else redis://127.0.0.1:6379), tenant A ("main") sends a campaign to
 * BENCH_RECIPIENTS (100,000) subscribers seeded in bulk SQL, uploads a Ghost members CSV of
 * BENCH_MEMBERS (50,000) and a Ghost archive of BENCH_POSTS (500) posts plus one pathological post
 * through the real admin routes, and opens that post's social pack; meanwhile tenant B
 * ("keydiscovery") is visited: signed-in page loads (the page cache serves no signed-in visitor)
 * at BENCH_PAGE_RATE a second, /healthz every 100 ms, and BENCH_SIGNUPS sign-ups whose mail is
 * timed from the request to the SMTP sink. It prints and writes bench/results/neighbours-<db>.json:
 * B's page p50/p99, /healthz p99, event-loop delay p99 (/metrics), the sign-up mail's p95, and the
 * load beside them (what A got done, each process's CPU, the machine's). Loopback only; it ends
 * when A's imports and pack and B's sign-ups are done, or after BENCH_SECONDS (120).
 * BENCH_NEIGHBOURS_ONLY=sqlite|postgres runs one of the two.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import os from "node:os";
import { pino } from "pino";
import { createCampaign } from "../server/campaigns/campaigns";
import { createDb, type Db } from "../server/db";
import { crossTenant } from "../server/db/tenant-guard";
import { outboxTransport } from "../server/mail/transport";
import { createNewsletter } from "../server/newsletters/editing";
import { publishNewsletter } from "../server/newsletters/newsletters";
import { listTenantLists } from "../server/subscribers/lists";
import { getTenant } from "../server/tenants/store";
import { createTestDatabase } from "../tests/support/database";
import {
  benchDialects,
  ensureBuild,
  findFreePort,
  formatTable,
  machineInfo,
  readProcCpuMs,
  repoRoot,
  round,
  type ServerHandle,
  sleep,
  startServer,
  writeResults,
} from "./lib";
import {
  eventLoopDelay,
  ghostArchiveWithPathologicalPost,
  ghostMembersCsv,
  PATHOLOGICAL_SLUG,
  Series,
  SIZES,
  seedRecipients,
  staffSession,
  startTimingSink,
  TARGETS,
  type TimingSink,
  timedGet,
} from "./neighbours-lib";

const SECRET = "bench-neighbours-secret-bench-neighbours-secret-0123";
const TOKEN = "bench-neighbours-metrics-token-0123456789";
const A = "main";
const B = "keydiscovery";

interface Process {
  name: string;
  pid: number;
  metricsUrl: string;
}

interface Setup {
  label: string;
  dialect: "sqlite" | "postgres";
  databaseUrl: string;
  /** the web instances B's visitors and A's staff use, in turn */
  web: ServerHandle[];
  processes: Process[];
  stop(): Promise<void>;
}

async function startSetup(dialect: "sqlite" | "postgres", sink: TimingSink): Promise<Setup> {
  const common = {
    SMTP_URL: sink.url,
    SESSION_SECRET: SECRET,
    METRICS_TOKEN: TOKEN,
    SEND_RATE: "0",
    SEND_CONCURRENCY: "8",
    HERALD_SECRET_KEY: "bench-neighbours-key-bench-neighbours-key-0123456",
  };
  const metricsOf = (server: ServerHandle) => `${server.baseUrl}/metrics`;
  if (dialect === "sqlite") {
    const web = await startServer({ name: "sqlite", env: common });
    return {
      label: "SQLite, one instance",
      dialect,
      databaseUrl: web.databaseUrl,
      web: [web],
      processes: [{ name: "web", pid: web.pid, metricsUrl: metricsOf(web) }],
      stop: () => web.stop(),
    };
  }
  const database = await createTestDatabase("postgres");
  await database.db.destroy();
  const redisUrl =
    process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
  const env = { ...common, DATABASE_URL: database.url, REDIS_URL: redisUrl, SEND_WORKER: "off" };
  // One after the other: the first migrates the new database.
  const web1 = await startServer({ name: "pg-web1", env });
  const web2 = await startServer({ name: "pg-web2", env });
  const metricsPort = await findFreePort();
  const worker = spawn(process.execPath, ["build/cli/herald.mjs", "worker"], {
    cwd: repoRoot,
    env: {
      ...process.env,
      ...env,
      NODE_ENV: "production",
      LOG_LEVEL: "warn",
      METRICS_PORT: String(metricsPort),
      DOMAIN_CHECK_EVERY: "off",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const workerMetrics = `http://127.0.0.1:${metricsPort}/metrics`;
  await waitFor(async () => (await eventLoopDelay(workerMetrics, TOKEN)) !== null, 30_000);
  return {
    label: "PostgreSQL + Redis, two instances and herald worker",
    dialect,
    databaseUrl: database.url,
    web: [web1, web2],
    processes: [
      { name: "web 1", pid: web1.pid, metricsUrl: metricsOf(web1) },
      { name: "web 2", pid: web2.pid, metricsUrl: metricsOf(web2) },
      { name: "worker", pid: worker.pid ?? -1, metricsUrl: workerMetrics },
    ],
    async stop() {
      await stopChild(worker);
      await Promise.all([web1.stop(), web2.stop()]);
      await database.drop();
    },
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 12_000);
  await exited;
  clearTimeout(timer);
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await sleep(200);
  }
}

/** What the machine's CPUs did between two readings of /proc/stat: busy share, percent. */
function machineTicks(): { busy: number; total: number } {
  const fields = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "")
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const total = fields.reduce((sum, value) => sum + value, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

/** A's staff at work: the campaign, the members import, the archive import, then the social pack. */
async function tenantAWork(setup: Setup, db: Db, cookie: string, deadline: number) {
  const [web] = setup.web;
  if (!web) throw new Error("no web instance");
  const headers = { cookie: `herald_subdomain=${A}; ${cookie}`, origin: web.baseUrl };
  const left = () => Math.max(1_000, deadline - Date.now());
  const upload = async (path: string, fields: Record<string, string>, file: Blob, name: string) => {
    const form = new FormData();
    for (const [key, value] of Object.entries(fields)) form.append(key, value);
    form.append("file", file, name);
    const started = performance.now();
    const response = await fetch(`${web.baseUrl}${path}`, {
      method: "POST",
      body: form,
      headers,
      redirect: "manual",
      signal: AbortSignal.timeout(left()),
    });
    const location = response.headers.get("location") ?? "";
    const id = Number(/\/(\d+)$/.exec(location)?.[1]);
    if (response.status !== 303 || !Number.isFinite(id)) {
      throw new Error(
        `${path} answered ${response.status}: ${(await response.text()).slice(0, 300)}`,
      );
    }
    return { id, uploadMs: round(performance.now() - started, 0) };
  };
  const until = async (table: "subscriber_imports" | "archive_imports", id: number) => {
    const started = performance.now();
    let status = "queued";
    while (Date.now() < deadline) {
      const row = await crossTenant(db)
        .selectFrom(table)
        .select("status")
        .where("tenant_id", "=", A)
        .where("id", "=", id)
        .executeTakeFirst();
      status = row?.status ?? "missing";
      if (status === "done" || status === "failed") break;
      await sleep(250);
    }
    return { status, runMs: round(performance.now() - started, 0) };
  };

  const campaign = (async () => {
    const started = performance.now();
    const created = await createCampaign(
      {
        db,
        logger: pino({ level: "silent" }),
        transport: outboxTransport(),
        tenant: (await getTenant(db, A)).config,
        origin: web.baseUrl,
        sessionSecret: SECRET,
      },
      {
        subject: "Tenant A's big send",
        content: "<p>Hello, all of you.</p>",
        groups: ["newsletter"],
      },
      null,
    );
    return {
      id: created.id,
      recipients: Number(created.total),
      queuedMs: round(performance.now() - started, 0),
    };
  })();
  const members = (async () => {
    const csv = ghostMembersCsv(SIZES.members);
    const queued = await upload(
      "/admin/subscribers/imports",
      { source: "ghost" },
      new Blob([csv], { type: "text/csv" }),
      "members.csv",
    );
    return {
      members: SIZES.members,
      megabytes: round(csv.length / 1e6, 1),
      ...queued,
      ...(await until("subscriber_imports", queued.id)),
    };
  })();
  const archive = (async () => {
    const json = ghostArchiveWithPathologicalPost(SIZES.posts, SIZES.nestedDivs, SIZES.inlineTags);
    const queued = await upload(
      "/admin/newsletter/import",
      { source: "ghost" },
      new Blob([json], { type: "application/json" }),
      "ghost.json",
    );
    const run = await until("archive_imports", queued.id);
    // The pathological post's social pack: its page, then the zip with its images.
    const post = await crossTenant(db)
      .selectFrom("newsletters")
      .select("id")
      .where("tenant_id", "=", A)
      .where("slug", "=", PATHOLOGICAL_SLUG)
      .executeTakeFirst();
    const pack: Record<string, number | string> = {};
    if (post) {
      for (const [key, path] of [
        ["pageMs", `/admin/newsletter/social/${post.id}`],
        ["zipMs", `/admin/newsletter/social/${post.id}/pack.zip`],
      ] as const) {
        const started = performance.now();
        const response = await fetch(`${web.baseUrl}${path}`, {
          headers,
          signal: AbortSignal.timeout(left()),
        }).catch(() => null);
        await response?.arrayBuffer().catch(() => null);
        pack[key] = round(performance.now() - started, 0);
        pack[`${key.replace("Ms", "")}Status`] = response?.status ?? "timeout";
      }
    }
    return {
      posts: SIZES.posts + 1,
      megabytes: round(json.length / 1e6, 1),
      ...queued,
      ...run,
      socialPack: post ? pack : "post not imported",
    };
  })();
  const settle = <T>(work: Promise<T>) =>
    work.catch((error: unknown) => ({ error: String(error) }));
  return Promise.all([settle(campaign), settle(members), settle(archive)]);
}

async function measure(setup: Setup, sink: TimingSink) {
  const db = createDb(setup.databaseUrl);
  try {
    // A's audience in bulk, B's pages, and a signed-in session for each.
    const aTenant = (await getTenant(db, A)).config;
    const newsletterList = (await listTenantLists(db, aTenant)).find(
      (list) => list.key === "newsletter",
    );
    if (!newsletterList) throw new Error("main has no newsletter list");
    await seedRecipients(db, setup.dialect, A, newsletterList.id, SIZES.recipients);
    const paths = ["/", "/newsletter"];
    for (let n = 0; n < 5; n++) {
      const ctx = { db, tenantId: B };
      const created = await createNewsletter(
        { ...ctx, authorId: null },
        {
          title: `Tenant B's issue ${n + 1}`,
          excerpt: "B's words.",
          content: `<p>${"B's news. ".repeat(300)}</p>`,
        },
      );
      await publishNewsletter(ctx, created.id);
      paths.push(`/newsletter/${created.slug}`);
    }
    const staffA = await staffSession(db, `staff-a-${Date.now()}@bench.example`);
    const visitorB = await staffSession(db, `visitor-b-${Date.now()}@bench.example`);

    // The window starts: event-loop delay, CPU and the machine read from here.
    for (const each of setup.processes) await eventLoopDelay(each.metricsUrl, TOKEN);
    const cpuAt = setup.processes.map((each) => readProcCpuMs(each.pid) ?? Number.NaN);
    const ticksAt = machineTicks();
    const startedAt = performance.now();
    const deadline = Date.now() + SIZES.seconds * 1000;
    let running = true;
    const inFlight = new Set<Promise<void>>();
    const track = (work: Promise<void>) => {
      inFlight.add(work);
      void work.finally(() => inFlight.delete(work));
    };

    const pages = new Series();
    const pageLoads = (async () => {
      for (let n = 0; running; n++) {
        const web = setup.web[n % setup.web.length] as ServerHandle;
        const path = paths[n % paths.length] as string;
        // Open loop: at the rate, whatever the answers take (at most 200 at once).
        if (inFlight.size < 200) {
          track(
            timedGet(`${web.baseUrl}${path}`, pages, {
              cookie: `herald_subdomain=${B}; ${visitorB}`,
            }),
          );
        }
        await sleep(1000 / SIZES.pageRate);
      }
    })();
    const healthz = new Series();
    const healthChecks = (async () => {
      while (running) {
        for (const web of setup.web) track(timedGet(`${web.baseUrl}/healthz`, healthz));
        await sleep(100);
      }
    })();
    const signUps = new Series();
    const signUpsDone = (async () => {
      for (let n = 0; n < SIZES.signUps && Date.now() < deadline; n++) {
        await sleep(1_500);
        const web = setup.web[n % setup.web.length] as ServerHandle;
        const email = `visitor-${n}-${Date.now()}@visitors.example`;
        const started = performance.now();
        const answered = fetch(`${web.baseUrl}/newsletter/subscribe`, {
          method: "POST",
          body: new URLSearchParams({ email }),
          headers: { cookie: `herald_subdomain=${B}`, "x-forwarded-for": `198.51.100.${n + 1}` },
          redirect: "manual",
          signal: AbortSignal.timeout(60_000),
        }).then(
          (response) => response.status === 303,
          () => false,
        );
        track(
          Promise.race([sink.arrived(email), sleep(60_000).then(() => null)]).then(async (at) =>
            signUps.record((at ?? performance.now()) - started, at !== null && (await answered)),
          ),
        );
      }
    })();
    const aWork = tenantAWork(setup, db, staffA, deadline);
    await Promise.race([
      Promise.all([aWork, signUpsDone, ...inFlight]),
      sleep(Math.max(0, deadline - Date.now())),
    ]);
    // The sign-ups' mail still on its way is waited for (60 s at most each), then the load stops.
    while (
      [...inFlight].length > 0 &&
      signUps.values.length < SIZES.signUps &&
      Date.now() < deadline + 60_000
    ) {
      await sleep(100);
    }
    running = false;
    await Promise.all([pageLoads, healthChecks]);
    await Promise.allSettled([...inFlight]);
    const windowMs = performance.now() - startedAt;
    const ticks = machineTicks();
    const cpu = setup.processes.map((each, index) =>
      round((((readProcCpuMs(each.pid) ?? Number.NaN) - (cpuAt[index] ?? 0)) / windowMs) * 100, 0),
    );
    const delays: Awaited<ReturnType<typeof eventLoopDelay>>[] = [];
    for (const each of setup.processes) delays.push(await eventLoopDelay(each.metricsUrl, TOKEN));
    const aDone = await Promise.race([aWork, sleep(0).then(() => null)]);
    const sent = await crossTenant(db)
      .selectFrom("deliveries")
      .select((eb) => eb.fn.countAll<number | string>().as("count"))
      .where("tenant_id", "=", A)
      .where("status", "=", "sent")
      .executeTakeFirst();
    const [campaign, members, archive] = aDone ?? [null, null, null];
    return {
      setup: setup.label,
      database: setup.dialect,
      windowSeconds: round(windowMs / 1000, 1),
      tenantBPages: pages.summary(),
      healthz: healthz.summary(),
      signUpMail: signUps.summary(),
      eventLoopDelay: Object.fromEntries(
        setup.processes.map((each, index) => [each.name, delays[index]]),
      ),
      tenantA: {
        campaign: {
          ...(campaign ?? {}),
          sentInWindow: Number(sent?.count ?? 0),
          sinkReceived: sink.campaignMessages,
        },
        membersImport: members ?? "still running at the end of the window",
        archiveImport: archive ?? "still running at the end of the window",
      },
      load: {
        cpuPercentOfOneCore: Object.fromEntries(
          setup.processes.map((each, index) => [each.name, cpu[index]]),
        ),
        machineBusyPercent: round(
          ((ticks.busy - ticksAt.busy) / Math.max(1, ticks.total - ticksAt.total)) * 100,
          0,
        ),
        loadAverage1m: round(os.loadavg()[0] ?? 0, 2),
      },
    };
  } finally {
    await db.destroy();
  }
}

type Result = Awaited<ReturnType<typeof measure>>;

function verdicts(result: Result) {
  const webDelays = Object.entries(result.eventLoopDelay)
    .filter(([name]) => name.startsWith("web"))
    .map(([, delay]) => delay?.p99Ms ?? Number.NaN);
  const loopP99 = Math.max(...webDelays);
  return {
    pageP99: (result.tenantBPages.p99Ms ?? Infinity) <= TARGETS.pageP99Ms,
    healthzP99: (result.healthz.p99Ms ?? Infinity) <= TARGETS.healthzP99Ms,
    eventLoopP99: loopP99 <= TARGETS.eventLoopP99Ms,
    signUpMailP95: (result.signUpMail.p95Ms ?? Infinity) <= TARGETS.confirmationP95Ms,
    loopP99,
  };
}

function print(result: Result): void {
  const verdict = verdicts(result);
  const mark = (ok: boolean) => (ok ? "meets" : "MISSES");
  console.log(`\n${result.setup} — ${result.windowSeconds} s window`);
  console.log(
    formatTable(
      ["measure", "p50 ms", "p95 ms", "p99 ms", "max ms", "n", "failed", "target", ""],
      [
        ["B's signed-in pages", result.tenantBPages, `p99 ≤ ${TARGETS.pageP99Ms}`, verdict.pageP99],
        ["/healthz", result.healthz, `p99 ≤ ${TARGETS.healthzP99Ms}`, verdict.healthzP99],
        [
          "B's sign-up mail",
          result.signUpMail,
          `p95 ≤ ${TARGETS.confirmationP95Ms}`,
          verdict.signUpMailP95,
        ],
      ].map(([label, s, target, ok]) => {
        const series = s as Result["healthz"];
        return [
          label as string,
          String(series.p50Ms),
          String(series.p95Ms),
          String(series.p99Ms),
          String(series.maxMs),
          String(series.count),
          String(series.failures),
          target as string,
          mark(ok as boolean),
        ];
      }),
      ["left", "right", "right", "right", "right", "right", "right", "left", "left"],
    ),
  );
  for (const [name, delay] of Object.entries(result.eventLoopDelay)) {
    console.log(
      `event-loop delay, ${name}: p50 ${delay?.p50Ms} ms, p99 ${delay?.p99Ms} ms, max ${delay?.maxMs} ms`,
    );
  }
  console.log(
    `event-loop p99 of the web instances ≤ ${TARGETS.eventLoopP99Ms} ms: ${mark(verdict.eventLoopP99)}`,
  );
  console.log(`beside it, tenant A: ${JSON.stringify(result.tenantA)}`);
  console.log(`load: ${JSON.stringify(result.load)}`);
}

async function main(): Promise<void> {
  ensureBuild();
  console.log(`sizes: ${JSON.stringify(SIZES)}`);
  for (const dialect of benchDialects(process.env.BENCH_NEIGHBOURS_ONLY)) {
    const sink = await startTimingSink();
    const setup = await startSetup(dialect, sink);
    try {
      const result = await measure(setup, sink);
      print(result);
      const file = await writeResults(`neighbours-${dialect}.json`, {
        date: new Date().toISOString(),
        machine: machineInfo(),
        sizes: SIZES,
        targets: TARGETS,
        verdicts: verdicts(result),
        ...result,
      });
      console.log(`Wrote ${file}`);
    } finally {
      await setup.stop();
      await sink.stop();
    }
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
