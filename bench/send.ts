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
 * signed (RSA-2048, issue 12 part 5); ed25519 signs with Ed25519, both with the two (issue 36).
 * Then the DKIM cost: none, RSA only and both ways, in turns (bench/send-dkim-cost.ts; skipped with
 * BENCH_DKIM_COST=off, or run alone with `-- --dkim-cost [rounds]`). `-- --compare <before>
 * <after> [rounds]` runs two checkouts' senders side by side instead (bench/compare-send.ts).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { compareSenders } from "./compare-send";
import { ensureBuild, formatTable, machineInfo, repoRoot, round, writeResults } from "./lib";
import { dkimCost } from "./send-dkim-cost";
import {
  parseSendDkim,
  prepareSendDatabase,
  runSender,
  SEND_CONCURRENCY,
  type SendDkim,
  type SenderRun,
} from "./send-lib";

const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 100_000);
/** "rsa", "ed25519", "both": every message DKIM-signed; unset or "off": unsigned */
const DKIM: SendDkim = parseSendDkim(process.env.BENCH_DKIM);
const DKIM_COST_ROUNDS = Number(process.env.BENCH_DKIM_COST_ROUNDS ?? 3);
const TARGET =
  "target: ≥ 1000 messages/s and sender RSS ≤ 300 MB at 100,000 recipients (SQLite); PostgreSQL within 1.5×";

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

interface RunResult extends SenderRun {
  dialect: string;
  dkim: string;
  subscribers: number;
  seedSeconds: number;
  /** createCampaign with mode "now": validation plus writing one delivery row per recipient */
  deliveryRowsSeconds: number;
}

async function run(database: Database): Promise<RunResult> {
  console.log(`[${database.dialect}] seeding ${SUBSCRIBERS.toLocaleString("en")} subscribers …`);
  const prepared = await prepareSendDatabase(repoRoot, database.url, SUBSCRIBERS, DKIM);
  console.log(`[${database.dialect}] sending …`);
  const sender = await runSender({
    root: repoRoot,
    databaseUrl: database.url,
    campaignId: prepared.campaignId,
    // BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the sender.
    nodeArgs: process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean),
    label: `[${database.dialect}] `,
  });
  return {
    dialect: database.dialect,
    dkim: DKIM ?? "off",
    subscribers: SUBSCRIBERS,
    seedSeconds: round(prepared.seedSeconds, 2),
    deliveryRowsSeconds: round(prepared.deliveryRowsSeconds, 2),
    ...sender,
    firstMessageSeconds: round(sender.firstMessageSeconds, 2),
    totalSeconds: round(sender.totalSeconds, 2),
    messagesPerSecond: Math.round(sender.messagesPerSecond),
    steadyMessagesPerSecond: Math.round(sender.steadyMessagesPerSecond),
    senderCpuMsPerMessage: round(sender.senderCpuMsPerMessage, 3),
    steadyCpuMsPerMessage: round(sender.steadyCpuMsPerMessage, 3),
  };
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
        "sending CPU ms/msg",
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
        String(result.steadyCpuMsPerMessage),
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
        "right",
      ],
    ),
  );
  const file = await writeResults("send.json", {
    date: new Date().toISOString(),
    machine: machineInfo(),
    concurrency: SEND_CONCURRENCY,
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

// `npm run bench:send -- --compare <before> <after> [rounds]`: two checkouts side by side.
if (process.argv[2] === "--compare") {
  const [before, after, rounds = "4"] = process.argv.slice(3);
  if (!before || !after || !(Number(rounds) > 0)) {
    console.error("usage: npm run bench:send -- --compare <before dir> <after dir> [rounds]");
    process.exit(2);
  }
  await compareSenders(before, after, Number(rounds));
} else if (process.argv[2] === "--dkim-cost") {
  await dkimCost(Number(process.argv[3] ?? DKIM_COST_ROUNDS));
} else {
  await main();
  if (process.env.BENCH_DKIM_COST !== "off" && !process.exitCode) await dkimCost(DKIM_COST_ROUNDS);
}
