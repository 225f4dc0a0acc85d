/**
 * Sending benchmark: `npm run bench:send` (BENCH_SUBSCRIBERS=10000 for a quick check).
 *
 * For SQLite, and for PostgreSQL when BENCH_DATABASE_URL is set (a fresh database is created
 * beside it and dropped afterwards): seeds BENCH_SUBSCRIBERS active subscribers (default
 * 100,000) on the default tenant's newsletter list, creates one campaign to send now (timed: this
 * writes the delivery rows), then starts the real sender, `herald worker`, as a child process
 * against a local SMTP sink with the rate limit off (SEND_RATE=0, SEND_CONCURRENCY=8). Prints
 * messages per second, time to first message and the sender's peak RSS; writes
 * bench/results/send.json. BENCH_DKIM=rsa gives the tenant a DKIM key first, so every message is
 * signed (RSA-2048, issue 12 part 5).
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { pino } from "pino";
import { SMTPServer } from "smtp-server";
import { createCampaign } from "../server/campaigns/campaigns";
import { createDb, type Db } from "../server/db";
import { migrateToLatest } from "../server/db/migrate";
import { smtpTransport } from "../server/mail/transport";
import { listTenantLists } from "../server/subscribers/lists";
import { generateDkimKey } from "../server/tenants/dkim";
import { seedTenants } from "../server/tenants/seed";
import { getTenant } from "../server/tenants/store";
import {
  ensureBuild,
  findFreePort,
  formatTable,
  machineInfo,
  type RssReport,
  RssSampler,
  repoRoot,
  round,
  sleep,
  writeResults,
} from "./lib";

const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 100_000);
/** "rsa": every message DKIM-signed; unset or "off": unsigned */
const DKIM = process.env.BENCH_DKIM === "rsa" ? "rsa" : null;
if (process.env.BENCH_DKIM && !["rsa", "off"].includes(process.env.BENCH_DKIM)) {
  throw new Error("BENCH_DKIM must be rsa or off");
}
const CONCURRENCY = 8;
const SECRET = "bench-send-secret-bench-send-secret-0123456789";
const TARGET =
  "target: ≥ 1000 messages/s and sender RSS ≤ 300 MB at 100,000 recipients (SQLite); PostgreSQL within 1.5×";

/** A newsletter of a realistic size: ~4 KB of HTML with a handful of tracked links. */
const CONTENT = [
  "<h2>This week in eDiscovery</h2>",
  ...Array.from(
    { length: 8 },
    (_, index) =>
      `<p>Section ${index + 1}: courts keep refining proportionality under Rule 26(b)(1), and review teams keep asking how technology-assisted review holds up when the collection is mostly chat. <a href="https://example.com/articles/${index + 1}">Read the analysis</a>.</p>`,
  ),
  '<p>Questions? <a href="https://example.com/contact">Book a call</a>.</p>',
].join("\n");

interface Sink {
  port: number;
  received: number;
  firstAt: number | null;
  lastAt: number | null;
  /** messages whose first header is a DKIM-Signature */
  signed: number;
  stop(): Promise<void>;
}

/** CPU time a process has used so far, from /proc (Linux): utime + stime, in milliseconds. */
function cpuMillisecondsOf(pid: number): number {
  // Fields after the parenthesised command name; utime and stime are the 14th and 15th overall.
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
}

/** A real SMTP server on loopback that counts messages and throws their bodies away. */
async function startCountingSink(): Promise<Sink> {
  const port = await findFreePort();
  const sink: Sink = {
    port,
    received: 0,
    firstAt: null,
    lastAt: null,
    signed: 0,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    maxClients: 64,
    onData(stream, _session, callback) {
      let first = true;
      stream.on("data", (chunk: Buffer) => {
        if (first && chunk.subarray(0, 15).toString("latin1") === "DKIM-Signature:") sink.signed++;
        first = false;
      });
      stream.on("end", () => {
        const now = performance.now();
        sink.received += 1;
        sink.firstAt ??= now;
        sink.lastAt = now;
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return sink;
}

/** N active subscribers of main on its newsletter list, in multi-row inserts of 500. */
async function seedSubscribers(db: Db, count: number): Promise<number> {
  const tenant = (await getTenant(db, "main")).config;
  const list = (await listTenantLists(db, tenant)).find((each) => each.key === "newsletter");
  if (!list) throw new Error("main has no newsletter list");
  const started = performance.now();
  const now = new Date().toISOString();
  const chunk = 500;
  for (let from = 0; from < count; from += chunk) {
    const size = Math.min(chunk, count - from);
    await db.transaction().execute(async (trx) => {
      const ids = await trx
        .insertInto("subscribers")
        .values(
          Array.from({ length: size }, (_, offset) => ({
            tenant_id: "main",
            email: `reader-${from + offset}@bench.example`,
            name: `Reader ${from + offset}`,
            status: "active" as const,
            subscribed_at: now,
            unsubscribed_at: null,
            created_at: now,
            updated_at: now,
          })),
        )
        .returning("id")
        .execute();
      await trx
        .insertInto("subscriptions")
        .values(
          ids.map(({ id }) => ({
            tenant_id: "main",
            subscriber_id: id,
            list_id: list.id,
            created_at: now,
          })),
        )
        .execute();
    });
  }
  return (performance.now() - started) / 1000;
}

interface Database {
  dialect: "sqlite" | "postgres";
  url: string;
  drop(): Promise<void>;
}

function sqliteDatabase(): Database {
  const dir = mkdtempSync(path.join(os.tmpdir(), "herald-bench-send-"));
  return {
    dialect: "sqlite",
    url: `file:${path.join(dir, "bench.db")}`,
    async drop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresDatabase(adminUrl: string): Promise<Database> {
  const name = `herald_bench_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    dialect: "postgres",
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

interface RunResult {
  dialect: string;
  dkim: string;
  subscribers: number;
  seedSeconds: number;
  /** createCampaign with mode "now": validation plus writing one delivery row per recipient */
  deliveryRowsSeconds: number;
  /** from starting the worker process to the first message the sink received */
  firstMessageSeconds: number;
  /** from starting the worker process to the last message */
  totalSeconds: number;
  /** recipients / totalSeconds: includes the worker's start-up */
  messagesPerSecond: number;
  /** messages between the first and the last one, per second */
  steadyMessagesPerSecond: number;
  /**
   * The sender's CPU time (user + system, thread pool included) per message: steadier than
   * messages/s on a shared machine, whose throughput varies with its neighbours.
   */
  senderCpuMsPerMessage: number;
  received: number;
  signed: number;
  campaignStatus: string;
  sent: number;
  rss: RssReport;
}

async function run(database: Database): Promise<RunResult> {
  const logger = pino({ level: "silent" });
  const db = createDb(database.url);
  const sink = await startCountingSink();
  const transport = smtpTransport(`smtp://127.0.0.1:${sink.port}`, 1);
  try {
    await migrateToLatest(db);
    await seedTenants(db);
    console.log(`[${database.dialect}] seeding ${SUBSCRIBERS.toLocaleString("en")} subscribers …`);
    const seedSeconds = await seedSubscribers(db, SUBSCRIBERS);
    if (DKIM) {
      await generateDkimKey(db, "bench", "main", {
        selector: "bench",
        domain: "keydiscovery.com",
        algorithm: DKIM,
      });
    }

    const tenant = (await getTenant(db, "main")).config;
    const ctx = {
      db,
      logger,
      transport,
      tenant,
      origin: "http://localhost:3000",
      sessionSecret: SECRET,
    };
    const createStarted = performance.now();
    const campaign = await createCampaign(
      ctx,
      { subject: "Bench: this week in eDiscovery", content: CONTENT, groups: ["newsletter"] },
      null,
    );
    const deliveryRowsSeconds = (performance.now() - createStarted) / 1000;
    if (campaign.total !== SUBSCRIBERS) {
      throw new Error(`expected ${SUBSCRIBERS} deliveries, the campaign has ${campaign.total}`);
    }

    console.log(`[${database.dialect}] sending …`);
    const started = performance.now();
    // BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the sender.
    const nodeArgs = process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? [];
    // The production build of the CLI, as `node build/cli/herald.mjs worker` runs in production.
    const child = spawn(process.execPath, [...nodeArgs, "build/cli/herald.mjs", "worker"], {
      cwd: repoRoot,
      env: {
        ...process.env,
        NODE_ENV: "production",
        DATABASE_URL: database.url,
        SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
        SEND_RATE: "0",
        SEND_CONCURRENCY: String(CONCURRENCY),
        SESSION_SECRET: SECRET,
        APP_URL: "http://localhost:3000",
        LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "inherit", "inherit"],
    });
    if (child.pid === undefined) throw new Error("could not start the worker");
    const sampler = new RssSampler(child.pid).start();
    let status = campaign.status;
    let lastReport = performance.now();
    while (child.exitCode === null) {
      await sleep(250);
      const row = await db
        .selectFrom("campaigns")
        .select("status")
        .where("tenant_id", "=", "main")
        .where("id", "=", campaign.id)
        .executeTakeFirstOrThrow();
      status = row.status;
      if (status === "sent" || status === "failed") break;
      if (performance.now() - lastReport > 10_000) {
        lastReport = performance.now();
        console.log(`[${database.dialect}] … ${sink.received.toLocaleString("en")} received`);
      }
    }
    const rss = sampler.stop();
    const cpuMs = cpuMillisecondsOf(child.pid);
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));

    const { sent } = await db
      .selectFrom("deliveries")
      .select((eb) => eb.fn.countAll<number>().as("sent"))
      .where("tenant_id", "=", "main")
      .where("campaign_id", "=", campaign.id)
      .where("status", "=", "sent")
      .executeTakeFirstOrThrow();
    const firstAt = sink.firstAt ?? started;
    const lastAt = sink.lastAt ?? started;
    const totalSeconds = (lastAt - started) / 1000;
    return {
      dialect: database.dialect,
      dkim: DKIM ?? "off",
      subscribers: SUBSCRIBERS,
      seedSeconds: round(seedSeconds, 2),
      deliveryRowsSeconds: round(deliveryRowsSeconds, 2),
      firstMessageSeconds: round((firstAt - started) / 1000, 2),
      totalSeconds: round(totalSeconds, 2),
      messagesPerSecond: Math.round(sink.received / totalSeconds),
      steadyMessagesPerSecond: Math.round((sink.received - 1) / ((lastAt - firstAt) / 1000)),
      senderCpuMsPerMessage: round(cpuMs / sink.received, 3),
      received: sink.received,
      signed: sink.signed,
      campaignStatus: status,
      sent: Number(sent),
      rss,
    };
  } finally {
    transport.close();
    await sink.stop();
    await db.destroy();
  }
}

async function main(): Promise<void> {
  ensureBuild();
  const databases: (() => Promise<Database>)[] = [async () => sqliteDatabase()];
  const pgUrl = process.env.BENCH_DATABASE_URL;
  if (pgUrl) databases.push(() => postgresDatabase(pgUrl));
  else console.log("BENCH_DATABASE_URL is not set: PostgreSQL is skipped.");

  const results: RunResult[] = [];
  for (const make of databases) {
    const database = await make();
    try {
      results.push(await run(database));
    } finally {
      await database.drop();
    }
  }

  console.log(`\n${TARGET}\n`);
  console.log(
    formatTable(
      [
        "database",
        "DKIM",
        "recipients",
        "delivery rows (s)",
        "first message (s)",
        "total (s)",
        "messages/s",
        "steady msg/s",
        "sender CPU ms/msg",
        "sender peak RSS (MB)",
        "received / sent",
      ],
      results.map((result) => [
        result.dialect,
        result.dkim,
        result.subscribers.toLocaleString("en"),
        String(result.deliveryRowsSeconds),
        String(result.firstMessageSeconds),
        String(result.totalSeconds),
        String(result.messagesPerSecond),
        String(result.steadyMessagesPerSecond),
        String(result.senderCpuMsPerMessage),
        String(result.rss.peakMb),
        `${result.received} / ${result.sent}`,
      ]),
      [
        "left",
        "left",
        "right",
        "right",
        "right",
        "right",
        "right",
        "right",
        "right",
        "right",
        "right",
      ],
    ),
  );
  const file = await writeResults("send.json", {
    date: new Date().toISOString(),
    machine: machineInfo(),
    concurrency: CONCURRENCY,
    dkim: DKIM ?? "off",
    target: TARGET,
    results,
  });
  console.log(`\nwritten to ${path.relative(repoRoot, file)}`);
  for (const result of results) {
    if (result.received !== result.subscribers || result.sent !== result.subscribers) {
      console.error(`${result.dialect}: not every recipient got exactly one message`);
      process.exitCode = 1;
    }
    if (result.signed !== (DKIM ? result.received : 0)) {
      console.error(`${result.dialect}: ${result.signed} of ${result.received} messages signed`);
      process.exitCode = 1;
    }
  }
}

await main();
