/**
 * Reusable pieces of Herald's benchmarks (bench/http.ts, later bench/send.ts): a free port, the
 * production server as a child process, an RSS sampler, an autocannon wrapper and a table printer;
 * for the benchmarks on the databases themselves, which databases to run on, a fresh one's bench
 * tenant, a series of rows for seeding in SQL, and a timer.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { sql } from "kysely";
import type { Db } from "../server/db";
import { migrateToLatest } from "../server/db/migrate";

/** The repository root (bench/..). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const MB = 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// Build and port

/** Runs `npm run build` when the production build is missing. */
export function ensureBuild(root = repoRoot): void {
  const built = ["server/index.js", "cli/herald.mjs"].every((file) =>
    existsSync(path.join(root, "build", file)),
  );
  if (built) return;
  console.log("Production build missing: running npm run build …");
  const result = spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`npm run build failed (exit code ${result.status})`);
}

/** A port that was free a moment ago: listen on port 0, note the port, close. */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.once("error", reject);
    probe.listen(0, () => {
      const address = probe.address();
      if (typeof address !== "object" || address === null) {
        probe.close();
        reject(new Error("could not read the probe's port"));
        return;
      }
      const { port } = address;
      probe.close((error) => (error ? reject(error) : resolve(port)));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// The production server

export interface StartServerOptions {
  /** A short name used in messages and temp dir names. */
  name?: string;
  /** Extra environment, on top of NODE_ENV, PORT, DATABASE_URL and LOG_LEVEL. */
  env?: Record<string, string>;
  root?: string;
  readyTimeoutMs?: number;
  /** A program the server runs under, with its arguments (valgrind, for bench:instructions). */
  runUnder?: (tempDir: string) => string[];
}

export interface ServerHandle {
  name: string;
  pid: number;
  port: number;
  /** http://127.0.0.1:PORT, no trailing slash */
  baseUrl: string;
  /** The fresh temporary directory holding the server's database. */
  tempDir: string;
  /** The server's DATABASE_URL, for seeding and checking with server/db's createDb. */
  databaseUrl: string;
  child: ChildProcess;
  /** SIGTERM, then SIGKILL after 5 s; removes the temp dir. Safe to call twice. */
  stop(): Promise<void>;
}

const running = new Set<ServerHandle>();
let cleanupInstalled = false;

/** Stops every server this process started, then exits: Ctrl-C must not leave servers behind. */
function installCleanup(): void {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      void Promise.allSettled([...running].map((server) => server.stop())).then(() =>
        process.exit(signal === "SIGINT" ? 130 : 143),
      );
    });
  }
  process.once("exit", () => {
    for (const server of running) {
      if (server.child.exitCode === null && server.child.signalCode === null) {
        server.child.kill("SIGKILL");
      }
      rmSync(server.tempDir, { recursive: true, force: true });
    }
  });
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off("exit", onExit);
      resolve(false);
    }, timeoutMs);
    const onExit = () => {
      clearTimeout(timer);
      resolve(true);
    };
    child.once("exit", onExit);
  });
}

/**
 * The Node flags `npm start` gives the server (package.json's start script), so that what is
 * measured is what runs in production.
 */
export function startFlags(root = repoRoot): string[] {
  const scripts = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).scripts;
  const flags = /\bnode\s+((?:--[\w-]+(?:=\S+)?\s+)*)server\.js\b/.exec(scripts?.start ?? "");
  return flags?.[1]?.split(/\s+/).filter(Boolean) ?? [];
}

/**
 * Starts `node server.js` in production mode, with `npm start`'s Node flags, on a free port with a
 * fresh SQLite database, and resolves once GET /healthz answers 200.
 */
export async function startServer(options: StartServerOptions = {}): Promise<ServerHandle> {
  installCleanup();
  const name = options.name ?? "server";
  const root = options.root ?? repoRoot;
  const readyTimeoutMs = options.readyTimeoutMs ?? 30_000;
  const port = await findFreePort();
  const tempDir = mkdtempSync(path.join(os.tmpdir(), `herald-bench-${name}-`));
  const databaseUrl = `file:${path.join(tempDir, "bench.db")}`;
  // BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the server under load.
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? [];
  const [program = process.execPath, ...programArgs] = options.runUnder?.(tempDir) ?? [];
  const nodeCommand = [...startFlags(root), ...nodeArgs, "server.js"];
  const args = options.runUnder ? [...programArgs, process.execPath, ...nodeCommand] : nodeCommand;
  const child = spawn(program, args, {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: "warn",
      DOMAIN_CHECK_EVERY: "off",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });

  // Keep the tail of the output for error messages; pass warnings and errors through.
  let output = "";
  const remember = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8_000);
  };
  child.stdout?.on("data", remember);
  // BENCH_SERVER_LOG=/tmp/server.log keeps all of the servers' output (with --trace-gc, say).
  const log = process.env.BENCH_SERVER_LOG;
  if (log) {
    const keep = (chunk: Buffer) => appendFileSync(log, chunk);
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
  }
  child.stderr?.on("data", (chunk: Buffer) => {
    remember(chunk);
    process.stderr.write(`[${name}] ${chunk.toString()}`);
  });

  let stopped: Promise<void> | undefined;
  const handle: ServerHandle = {
    name,
    pid: child.pid ?? -1,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    tempDir,
    databaseUrl,
    child,
    stop() {
      stopped ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill("SIGTERM");
          if (!(await waitForExit(child, 5_000))) {
            child.kill("SIGKILL");
            await waitForExit(child, 5_000);
          }
        }
        rmSync(tempDir, { recursive: true, force: true });
        running.delete(handle);
      })();
      return stopped;
    },
  };
  running.add(handle);

  try {
    if (child.pid === undefined) {
      const error = await new Promise<Error>((resolve) => child.once("error", resolve));
      throw new Error(`could not start ${name}: ${error.message}`);
    }
    await waitForHealthy(handle, readyTimeoutMs, () => output);
    return handle;
  } catch (error) {
    await handle.stop();
    throw error;
  }
}

async function waitForHealthy(
  server: ServerHandle,
  timeoutMs: number,
  output: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const url = `${server.baseUrl}/healthz`;
  while (Date.now() < deadline) {
    const { exitCode, signalCode } = server.child;
    if (exitCode !== null || signalCode !== null) {
      throw new Error(
        `${server.name} exited (${exitCode ?? signalCode}) before answering ${url}:\n${output()}`,
      );
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(
    `${server.name} did not answer 200 on ${url} within ${timeoutMs} ms:\n${output()}`,
  );
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---------------------------------------------------------------------------------------------
// Memory

export interface RssReport {
  /** The highest VmRSS seen while sampling, MB (null when /proc is unavailable). */
  sampledPeakMb: number | null;
  /** VmHWM (the kernel's own RSS high-water mark) read at the end, MB. */
  hwmMb: number | null;
  /** max(sampledPeakMb, hwmMb) */
  peakMb: number | null;
  samples: number;
}

/** Reads a `kB` field such as VmRSS from /proc/<pid>/status; null when unavailable. */
export function readProcStatusKb(pid: number, field: "VmRSS" | "VmHWM"): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, "m").exec(status);
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/**
 * CPU time a process has used so far, ms (user + system, from /proc/<pid>/stat; null when
 * unavailable). Divided by the requests served between two readings it gives the CPU a request
 * costs: steadier than req/s on a shared machine, whose share of the CPU varies from minute to
 * minute.
 */
export function readProcCpuMs(pid: number, thread?: number): number | null {
  try {
    const file = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
    const stat = readFileSync(file, "utf8");
    // The command name (field 2) may hold spaces: fields are counted after its closing paren.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
    return Number.isFinite(ticks) ? (ticks * 1000) / CLOCK_TICKS_PER_SECOND : null;
  } catch {
    return null;
  }
}
/** USER_HZ: 100 on every Linux architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** Samples a process's VmRSS every `intervalMs` (Linux /proc) and reads VmHWM on stop. */
export class RssSampler {
  private timer: NodeJS.Timeout | undefined;
  private peakKb: number | null = null;
  private samples = 0;

  constructor(
    private readonly pid: number,
    private readonly intervalMs = 100,
  ) {}

  start(): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    return this;
  }

  private sample(): void {
    const kb = readProcStatusKb(this.pid, "VmRSS");
    if (kb === null) return;
    this.samples += 1;
    this.peakKb = Math.max(this.peakKb ?? 0, kb);
  }

  /** Stop sampling; call before the process exits so VmHWM can still be read. */
  stop(): RssReport {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.sample();
    const hwmKb = readProcStatusKb(this.pid, "VmHWM");
    const toMb = (kb: number | null) => (kb === null ? null : round((kb * 1024) / MB, 1));
    const peakKb =
      this.peakKb === null && hwmKb === null ? null : Math.max(this.peakKb ?? 0, hwmKb ?? 0);
    return {
      sampledPeakMb: toMb(this.peakKb),
      hwmMb: toMb(hwmKb),
      peakMb: toMb(peakKb),
      samples: this.samples,
    };
  }
}

// ---------------------------------------------------------------------------------------------
// Load

export interface LoadOptions {
  url: string;
  connections?: number;
  durationSeconds?: number;
  /** A fixed number of requests instead of a duration. */
  amount?: number;
  method?: autocannon.Request["method"];
  headers?: Record<string, string>;
  body?: string;
}

/** One autocannon run; resolves with autocannon's result. */
export function runLoad(options: LoadOptions): Promise<autocannon.Result> {
  return autocannon({
    url: options.url,
    connections: options.connections ?? 20,
    ...(options.amount === undefined
      ? { duration: options.durationSeconds ?? 10 }
      : { amount: options.amount }),
    method: options.method ?? "GET",
    headers: options.headers,
    body: options.body,
  });
}

/**
 * A fixed number of requests, every one answered before it resolves (a duration run drops the
 * requests in flight when time is up, which the server may still have handled). `elapsedSeconds`
 * runs from the start to the last response, without autocannon's wait for its next sampling tick.
 */
export async function runFixedLoad(
  options: Omit<LoadOptions, "durationSeconds"> & { amount: number },
): Promise<{ result: autocannon.Result; elapsedSeconds: number }> {
  const started = performance.now();
  let lastResponse = started;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections ?? 20,
        amount: options.amount,
        method: options.method ?? "GET",
        headers: options.headers,
        body: options.body,
      },
      (error, outcome) => (error ? reject(error) : resolve(outcome)),
    );
    instance.on("response", () => {
      lastResponse = performance.now();
    });
  });
  return { result, elapsedSeconds: Math.max(0.001, (lastResponse - started) / 1000) };
}

export interface LoadSummary {
  label: string;
  url: string;
  connections: number;
  durationSeconds: number;
  /** mean requests per second */
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  maxMs: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** mean response bytes per second */
  bytesPerSec: number;
}

export function summarize(label: string, result: autocannon.Result): LoadSummary {
  return {
    label,
    url: result.url,
    connections: result.connections,
    durationSeconds: result.duration,
    reqPerSec: round(result.requests.average, 1),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    meanMs: round(result.latency.average, 2),
    maxMs: result.latency.max,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    bytesPerSec: Math.round(result.throughput.average),
  };
}

// ---------------------------------------------------------------------------------------------
// Output

export type Align = "left" | "right";

/** A Markdown table (pastes straight into the README), columns padded to line up. */
export function formatTable(headers: string[], rows: string[][], align: Align[] = []): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, 3, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const cell = (text: string, column: number) =>
    align[column] === "right"
      ? text.padStart(widths[column] ?? 0)
      : text.padEnd(widths[column] ?? 0);
  const line = (cells: string[]) =>
    `| ${headers.map((_, column) => cell(cells[column] ?? "", column)).join(" | ")} |`;
  const rule = `|${widths
    .map((width, column) =>
      align[column] === "right" ? `${"-".repeat(width + 1)}:` : "-".repeat(width + 2),
    )
    .join("|")}|`;
  return [line(headers), rule, ...rows.map(line)].join("\n");
}

export function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  node: string;
  platform: string;
  release: string;
  totalMemoryMb: number;
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? "unknown",
    node: process.version,
    platform: os.platform(),
    release: os.release(),
    totalMemoryMb: Math.round(os.totalmem() / MB),
  };
}

/** Writes `data` as pretty JSON under bench/results/. Returns the path written. */
export async function writeResults(fileName: string, data: unknown): Promise<string> {
  const directory = path.join(repoRoot, "bench", "results");
  await mkdir(directory, { recursive: true });
  const file = path.join(directory, fileName);
  await writeFile(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}

/** Seconds from an environment variable, else the fallback. */
export function envSeconds(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) {
    throw new Error(`${name} must be a number of seconds, got ${JSON.stringify(raw)}`);
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// Databases (the benchmarks that call server/ functions on a fresh database of each kind)

export type BenchDialect = "sqlite" | "postgres";

/**
 * The databases to measure on: SQLite, and PostgreSQL when BENCH_DATABASE_URL (or
 * TEST_DATABASE_URL) names a server — then made TEST_DATABASE_URL, where createTestDatabase
 * (tests/support/database.ts) looks. `only` (a benchmark's *_ONLY variable) keeps one of them.
 */
export function benchDialects(only?: string): BenchDialect[] {
  const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (postgresUrl) process.env.TEST_DATABASE_URL = postgresUrl;
  const dialects: BenchDialect[] = postgresUrl ? ["sqlite", "postgres"] : ["sqlite"];
  return dialects.filter((dialect) => !only || dialect === only);
}

/** A fresh database's schema and the tenant "bench" the benchmarks fill. */
export async function setUpBenchTenant(db: Db, extra: { domain?: string } = {}): Promise<void> {
  await migrateToLatest(db);
  const now = new Date().toISOString();
  await db
    .insertInto("tenants")
    .values({
      id: "bench",
      name: "Bench",
      ...extra,
      description: "",
      config: "{}",
      created_at: now,
      updated_at: now,
    })
    .execute();
}

/** A series 1..n as rows of `i`, on either database (seeding many rows in one statement). */
export function seriesOf(dialect: BenchDialect, n: number) {
  return dialect === "postgres"
    ? sql`generate_series(1, ${n}) AS n(i)`
    : sql`(WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${n}) SELECT i FROM s) AS n`;
}

/** What `work` returns, and how many milliseconds it took. */
export async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
}
