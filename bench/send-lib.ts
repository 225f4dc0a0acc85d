/**
 * The sending benchmarks' shared parts (bench/send.ts, bench/compare-send.ts): a database holding
 * one campaign ready to send, made by a given checkout's own code; a counting SMTP sink; and one
 * run of a checkout's real sender (`node build/cli/herald.mjs worker`) until that campaign is sent.
 *
 * Run as a script it prepares such a database for another checkout, in a process of its own so
 * that the checkout's modules (and their module-level state) stay apart from this one's:
 * `tsx bench/send-lib.ts prepare <checkout> <database url> <subscribers> <rsa|ed25519|both|off>`.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { pino } from "pino";
import { SMTPServer } from "smtp-server";
import { createDb, type Db } from "../server/db";
import { findFreePort, type RssReport, RssSampler, readProcCpuMs, repoRoot, sleep } from "./lib";

/** A newsletter of a realistic size: ~4 KB of HTML with a handful of tracked links. */
export const CONTENT = [
  "<h2>This week in eDiscovery</h2>",
  ...Array.from(
    { length: 8 },
    (_, index) =>
      `<p>Section ${index + 1}: courts keep refining proportionality under Rule 26(b)(1), and review teams keep asking how technology-assisted review holds up when the collection is mostly chat. <a href="https://example.com/articles/${index + 1}">Read the analysis</a>.</p>`,
  ),
  '<p>Questions? <a href="https://example.com/contact">Book a call</a>.</p>',
].join("\n");

/** The sender's session secret: tracking and unsubscribe links are signed with it. */
export const SEND_SECRET = "bench-send-secret-bench-send-secret-0123456789";
// BENCH_SEND_CONCURRENCY: the worker's runners (SEND_CONCURRENCY), 8 unless given.
export const SEND_CONCURRENCY = Number(process.env.BENCH_SEND_CONCURRENCY ?? 8);
// One key for the set-up (a DKIM key is sealed with it) and the sender (which opens it), given
// rather than generated into the checkout's data/.
process.env.HERALD_SECRET_KEY ??= "bench-send-key-bench-send-key-bench-send-key-0123";

/**
 * How main's mail is signed: RSA-2048, Ed25519, both (two signatures on every message, issue 36),
 * or not at all (null).
 */
export type SendDkim = "rsa" | "ed25519" | "both" | null;

/** BENCH_DKIM's value as a SendDkim: unset or "off" is null; anything else unknown is refused. */
export function parseSendDkim(value: string | undefined): SendDkim {
  if (value === undefined || value === "" || value === "off") return null;
  if (value === "rsa" || value === "ed25519" || value === "both") return value;
  throw new Error(`BENCH_DKIM must be rsa, ed25519, both or off (not ${value})`);
}

export interface PreparedSend {
  campaignId: string;
  seedSeconds: number;
  /** createCampaign with mode "now": validation plus writing one delivery row per recipient */
  deliveryRowsSeconds: number;
}

/**
 * Migrates `url`, seeds the default tenants and `subscribers` active subscribers on main's
 * newsletter list (multi-row inserts of 500), gives main its DKIM key(s) when asked, and
 * creates one campaign to send now — all with the server code of `root` (a checkout), loaded by
 * path, so an older commit prepares its database its own way.
 */
export async function prepareSendDatabase(
  root: string,
  url: string,
  subscribers: number,
  dkim: SendDkim,
): Promise<PreparedSend> {
  // Typed as this checkout's modules; an older checkout's have the same calls (bench/send.ts's).
  const load = <T>(file: string): Promise<T> =>
    import(pathToFileURL(path.join(root, "server", file)).href) as Promise<T>;
  const [
    { createDb },
    { migrateToLatest },
    { seedTenants },
    { getTenant },
    lists,
    campaigns,
    { outboxTransport },
  ] = await Promise.all([
    load<typeof import("../server/db")>("db/index.ts"),
    load<typeof import("../server/db/migrate")>("db/migrate.ts"),
    load<typeof import("../server/tenants/seed")>("tenants/seed.ts"),
    load<typeof import("../server/tenants/store")>("tenants/store.ts"),
    load<typeof import("../server/subscribers/lists")>("subscribers/lists.ts"),
    load<typeof import("../server/campaigns/campaigns")>("campaigns/campaigns.ts"),
    load<typeof import("../server/mail/transport")>("mail/transport.ts"),
  ]);
  const db = createDb(url);
  try {
    await migrateToLatest(db);
    await seedTenants(db);
    const tenant = (await getTenant(db, "main")).config;
    const list = (await lists.listTenantLists(db, tenant)).find(
      (each) => each.key === "newsletter",
    );
    if (!list) throw new Error("main has no newsletter list");
    const seedStarted = performance.now();
    await seedSubscribers(db, list.id, subscribers);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    if (dkim) {
      const { generateDkimKey, activatePendingDkimKey } =
        await load<typeof import("../server/tenants/dkim")>("tenants/dkim.ts");
      for (const algorithm of dkim === "both" ? (["rsa", "ed25519"] as const) : [dkim]) {
        await generateDkimKey(db, "bench", "main", {
          selector: `bench-${algorithm}`,
          domain: "keydiscovery.com",
          algorithm,
        });
      }
      // The second key waits for its DNS record until staff add it: here at once.
      if (dkim === "both") await activatePendingDkimKey(db, "bench", "main", "ed25519");
    }
    const ctx = {
      db,
      logger: pino({ level: "silent" }),
      // Sending now only queues the deliveries: nothing goes through this transport.
      transport: outboxTransport(),
      tenant: (await getTenant(db, "main")).config,
      origin: "http://localhost:3000",
      sessionSecret: SEND_SECRET,
    };
    const createStarted = performance.now();
    const campaign = await campaigns.createCampaign(
      ctx,
      { subject: "Bench: this week in eDiscovery", content: CONTENT, groups: ["newsletter"] },
      null,
    );
    const deliveryRowsSeconds = (performance.now() - createStarted) / 1000;
    if (campaign.total !== subscribers) {
      throw new Error(`expected ${subscribers} deliveries, the campaign has ${campaign.total}`);
    }
    return { campaignId: campaign.id, seedSeconds, deliveryRowsSeconds };
  } finally {
    await db.destroy();
  }
}

async function seedSubscribers(db: Db, listId: number, count: number): Promise<void> {
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
            list_id: listId,
            created_at: now,
          })),
        )
        .execute();
    });
  }
}

/** prepareSendDatabase for another checkout, in a child process (see the top of this file). */
export function prepareSendDatabaseApart(
  root: string,
  url: string,
  subscribers: number,
  dkim: SendDkim,
): Promise<PreparedSend> {
  const tsx = path.join(repoRoot, "node_modules", ".bin", "tsx");
  const script = fileURLToPath(import.meta.url);
  const child = spawn(tsx, [script, "prepare", root, url, String(subscribers), dkim ?? "off"], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code !== 0) reject(new Error(`preparing the database in ${root} failed (${code})`));
      else resolve(JSON.parse(output.trim().split("\n").at(-1) ?? "") as PreparedSend);
    });
  });
}

export interface Sink {
  port: number;
  received: number;
  firstAt: number | null;
  lastAt: number | null;
  /** messages whose first header is a DKIM-Signature */
  signed: number;
  /** DKIM-Signature fields at the top of the messages (two a message when signed both ways) */
  signatures: number;
  /** called when the first message is in */
  onFirst?: () => void;
  stop(): Promise<void>;
}

/** A real SMTP server on loopback that counts messages and throws their bodies away. */
export async function startCountingSink(): Promise<Sink> {
  const port = await findFreePort();
  const sink: Sink = {
    port,
    received: 0,
    firstAt: null,
    lastAt: null,
    signed: 0,
    signatures: 0,
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
        if (first && chunk.subarray(0, 15).toString("latin1") === "DKIM-Signature:") {
          sink.signed++;
          // Each signature is a few hundred bytes: all of them are in the first chunk.
          const top = chunk.subarray(0, 8192).toString("latin1");
          sink.signatures += top.match(/^DKIM-Signature:/gm)?.length ?? 0;
        }
        first = false;
      });
      stream.on("end", () => {
        const now = performance.now();
        sink.received += 1;
        if (sink.firstAt === null) {
          sink.firstAt = now;
          sink.onFirst?.();
        }
        sink.lastAt = now;
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return sink;
}

export interface SenderRun {
  /** from starting the worker process to the first message the sink received */
  firstMessageSeconds: number;
  /** from starting the worker process to the last message */
  totalSeconds: number;
  /** received / totalSeconds: includes the worker's start-up */
  messagesPerSecond: number;
  /** messages between the first and the last one, per second */
  steadyMessagesPerSecond: number;
  /**
   * The sender's CPU time (user + system, thread pool included) per message, start-up included:
   * steadier than messages/s on a shared machine, whose throughput varies with its neighbours.
   */
  senderCpuMsPerMessage: number;
  /** the same from the first message on: the sending alone, without loading and migrating */
  steadyCpuMsPerMessage: number;
  /**
   * Of that, the sender's JavaScript thread alone (its main thread's /proc entry): what bounds its
   * pace, where the rest (signing threads, the garbage collector's helpers) can use another core.
   */
  steadyMainThreadCpuMsPerMessage: number;
  /** the counting SMTP sink's CPU time a message (this process): what it takes of the machine too */
  steadySinkCpuMsPerMessage: number;
  received: number;
  signed: number;
  signatures: number;
  campaignStatus: string;
  sent: number;
  rss: RssReport;
}

/**
 * Starts the sender of checkout `root` as production runs it, on `databaseUrl` holding the
 * prepared campaign, against a fresh counting sink (SEND_RATE=0); stops it once the campaign is
 * sent (or failed) and answers what it took. `nodeArgs` go to node (--cpu-prof…).
 */
export async function runSender(options: {
  root: string;
  databaseUrl: string;
  campaignId: string;
  nodeArgs?: string[];
  label?: string;
}): Promise<SenderRun> {
  const { root, databaseUrl, campaignId } = options;
  const db = createDb(databaseUrl);
  const sink = await startCountingSink();
  try {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [...(options.nodeArgs ?? []), "build/cli/herald.mjs", "worker"],
      {
        cwd: root,
        env: {
          ...process.env,
          NODE_ENV: "production",
          DATABASE_URL: databaseUrl,
          SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
          SEND_RATE: "0",
          SEND_CONCURRENCY: String(SEND_CONCURRENCY),
          SESSION_SECRET: SEND_SECRET,
          APP_URL: "http://localhost:3000",
          LOG_LEVEL: "warn",
        },
        stdio: ["ignore", "inherit", "inherit"],
      },
    );
    const pid = child.pid;
    if (pid === undefined) throw new Error("could not start the worker");
    // Interrupted (Ctrl-C, a timeout): the sender goes too, not left sending into a closed sink.
    const interrupted = () => {
      child.kill("SIGKILL");
      process.exit(130);
    };
    process.once("SIGINT", interrupted).once("SIGTERM", interrupted);
    let cpuAtFirst: number | null = null;
    let mainThreadCpuAtFirst: number | null = null;
    let sinkCpuAtFirst: NodeJS.CpuUsage | undefined;
    sink.onFirst = () => {
      cpuAtFirst = readProcCpuMs(pid);
      mainThreadCpuAtFirst = readProcCpuMs(pid, pid);
      sinkCpuAtFirst = process.cpuUsage();
    };
    const sampler = new RssSampler(pid).start();
    let status = "";
    let lastReport = performance.now();
    while (child.exitCode === null) {
      await sleep(250);
      const row = await db
        .selectFrom("campaigns")
        .select("status")
        .where("tenant_id", "=", "main")
        .where("id", "=", campaignId)
        .executeTakeFirstOrThrow();
      status = row.status;
      if (status === "sent" || status === "failed") break;
      if (performance.now() - lastReport > 10_000) {
        lastReport = performance.now();
        console.log(`${options.label ?? ""}… ${sink.received.toLocaleString("en")} received`);
      }
    }
    const rss = sampler.stop();
    const cpuMs = readProcCpuMs(pid) ?? Number.NaN;
    const mainThreadCpuMs = readProcCpuMs(pid, pid) ?? Number.NaN;
    const sinkCpu = process.cpuUsage(sinkCpuAtFirst);
    process.off("SIGINT", interrupted).off("SIGTERM", interrupted);
    child.kill("SIGTERM");
    await new Promise((resolve) =>
      child.exitCode === null ? child.once("exit", resolve) : resolve(null),
    );

    const { sent } = await db
      .selectFrom("deliveries")
      .select((eb) => eb.fn.countAll<number>().as("sent"))
      .where("tenant_id", "=", "main")
      .where("campaign_id", "=", campaignId)
      .where("status", "=", "sent")
      .executeTakeFirstOrThrow();
    const firstAt = sink.firstAt ?? started;
    const lastAt = sink.lastAt ?? started;
    const totalSeconds = (lastAt - started) / 1000;
    return {
      firstMessageSeconds: (firstAt - started) / 1000,
      totalSeconds,
      messagesPerSecond: sink.received / totalSeconds,
      steadyMessagesPerSecond: (sink.received - 1) / ((lastAt - firstAt) / 1000),
      senderCpuMsPerMessage: cpuMs / sink.received,
      steadyCpuMsPerMessage: (cpuMs - (cpuAtFirst ?? Number.NaN)) / (sink.received - 1),
      steadyMainThreadCpuMsPerMessage:
        (mainThreadCpuMs - (mainThreadCpuAtFirst ?? Number.NaN)) / (sink.received - 1),
      steadySinkCpuMsPerMessage: sinkCpuAtFirst
        ? (sinkCpu.user + sinkCpu.system) / 1000 / (sink.received - 1)
        : Number.NaN,
      received: sink.received,
      signed: sink.signed,
      signatures: sink.signatures,
      campaignStatus: status,
      sent: Number(sent),
      rss,
    };
  } finally {
    await sink.stop();
    await db.destroy();
  }
}

// As a script: prepare a database for the checkout named (bench/compare-send.ts runs this).
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [command, root, url, subscribers, dkim] = process.argv.slice(2);
  if (command !== "prepare" || !root || !url || !(Number(subscribers) > 0)) {
    console.error(
      "usage: tsx bench/send-lib.ts prepare <checkout> <database url> <subscribers> <rsa|ed25519|both|off>",
    );
    process.exit(2);
  }
  const prepared = await prepareSendDatabase(
    path.resolve(root),
    url,
    Number(subscribers),
    parseSendDkim(dkim),
  );
  console.log(JSON.stringify(prepared));
  process.exit(0);
}
