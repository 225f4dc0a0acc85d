/**
 * HTTP benchmark of the production build: `npm run bench` (BENCH_DURATION=2 for a quick check).
 *
 * Starts `node server.js` (NODE_ENV=production, fresh SQLite database) on a free port, loads each
 * scenario with autocannon (warm-up, then 20 connections for BENCH_DURATION seconds), samples the
 * server's RSS, measures the home page's client JavaScript, prints a table and writes
 * bench/results/http.json.
 *
 * A scenario whose requests write (a newsletter page counts a view per load) runs a fixed number of
 * requests instead — as many as its warm-up rate fits in BENCH_DURATION — so that every request sent
 * is answered, and the database's count is compared with the 2xx responses.
 *
 * Issue 17 adds: the home and newsletter pages rendered (PAGE_CACHE=off), the dashboard signed in
 * (a super admin's session made through the server's functions), a bare node:http server sending
 * the newsletter page's bytes (the ceiling the cached page is compared with), and a minute of mixed
 * load — cached and rendered pages, staff, sign-up posts, all at once — through which the server's
 * RSS is sampled (BENCH_MIXED_DURATION, 0 skips it).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import autocannon from "autocannon";
import {
  ensureBuild,
  envSeconds,
  findFreePort,
  formatTable,
  type LoadSummary,
  machineInfo,
  type RssReport,
  RssSampler,
  readProcCpuMs,
  readProcStatusKb,
  repoRoot,
  round,
  runFixedLoad,
  runLoad,
  type ServerHandle,
  startServer,
  summarize,
  writeResults,
} from "./lib";
import {
  type CountCheck,
  type PreparedScenario,
  seedArchive,
  seedNewsletterPage,
  signedIn,
  staffCookie,
} from "./scenarios";

const CONNECTIONS = 20;

interface Target {
  /** the scenario's label */
  scenario: string;
  minReqPerSec: number;
  maxP99Ms: number;
  text: string;
}

const NEWSLETTER_SCENARIO = "GET /newsletter/{slug}";
const HOME_UNCACHED_SCENARIO = "GET / (page cache off)";
const NEWSLETTER_UNCACHED_SCENARIO = "GET /newsletter/{slug} (page cache off)";
const DASHBOARD_SCENARIO = "GET /admin/dashboard (signed in)";
const ARCHIVE_SCENARIO = "GET /newsletter (1,000 published)";
const TAG_SCENARIO = "GET /newsletter/tag/{tag} (1,000 published)";
const TARGETS: Target[] = [
  {
    scenario: "GET /",
    minReqPerSec: 1500,
    maxP99Ms: 50,
    text: "target: GET / ≥ 1500 req/s, p99 ≤ 50 ms",
  },
  {
    scenario: NEWSLETTER_SCENARIO,
    minReqPerSec: 800,
    maxP99Ms: 80,
    text: "target: GET /newsletter/{slug} ≥ 800 req/s, p99 ≤ 80 ms",
  },
  {
    scenario: ARCHIVE_SCENARIO,
    minReqPerSec: 1500,
    maxP99Ms: 50,
    text: "target: the archive, 1,000 newsletters in the tenant, ≥ 1500 req/s cached",
  },
  {
    scenario: TAG_SCENARIO,
    minReqPerSec: 1500,
    maxP99Ms: 50,
    text: "target: a tag page, 1,000 newsletters in the tenant, ≥ 1500 req/s cached",
  },
  // Issue 17: what everyone who is not an anonymous reader of a cached page gets.
  {
    scenario: HOME_UNCACHED_SCENARIO,
    minReqPerSec: 1000,
    maxP99Ms: 60,
    text: "target: GET / rendered (page cache off) ≥ 1000 req/s, p99 ≤ 60 ms",
  },
  {
    scenario: NEWSLETTER_UNCACHED_SCENARIO,
    minReqPerSec: 1000,
    maxP99Ms: 60,
    text: "target: GET /newsletter/{slug} rendered (page cache off) ≥ 1000 req/s, p99 ≤ 60 ms",
  },
  {
    scenario: DASHBOARD_SCENARIO,
    minReqPerSec: 500,
    maxP99Ms: Number.POSITIVE_INFINITY,
    text: "target: GET /admin/dashboard signed in ≥ 500 req/s",
  },
];

// ---------------------------------------------------------------------------------------------
// Servers and scenarios: add a scenario by appending to `scenarios`.

interface ServerProfile {
  description: string;
  /** Extra environment for `node server.js`. */
  env: Record<string, string>;
}

const profiles = {
  default: { description: "production server, page cache on", env: {} },
  pageCacheOff: { description: "production server, PAGE_CACHE=off", env: { PAGE_CACHE: "off" } },
} satisfies Record<string, ServerProfile>;

type ProfileName = keyof typeof profiles;

interface Scenario {
  label: string;
  /** Which server the scenario runs against (one server per profile, started once). */
  profile: ProfileName;
  method?: "GET";
  /** A path, or a function that seeds the running server and finds one (e.g. a newsletter's id). */
  path: string | ((server: ServerHandle) => Promise<PreparedScenario>);
  headers?: Record<string, string>;
}

const scenarios: Scenario[] = [
  { label: "GET /", profile: "default", path: "/" },
  { label: "GET /about", profile: "default", path: "/about" },
  { label: ARCHIVE_SCENARIO, profile: "default", path: seedArchive("/newsletter") },
  { label: TAG_SCENARIO, profile: "default", path: seedArchive("/newsletter/tag/ediscovery") },
  { label: NEWSLETTER_SCENARIO, profile: "default", path: seedNewsletterPage },
  { label: DASHBOARD_SCENARIO, profile: "default", path: signedIn("/admin/dashboard") },
  { label: HOME_UNCACHED_SCENARIO, profile: "pageCacheOff", path: "/" },
  { label: NEWSLETTER_UNCACHED_SCENARIO, profile: "pageCacheOff", path: seedNewsletterPage },
];

// ---------------------------------------------------------------------------------------------
// Client JavaScript of a page

interface AssetSize {
  url: string;
  /** where the URL was found: script[src], link[rel=modulepreload], or an inline script's import */
  source: string;
  status: number;
  rawBytes: number;
  gzipBytes: number;
}

interface ClientJsReport {
  page: string;
  files: number;
  rawKb: number;
  gzipKb: number;
  inlineScripts: { count: number; rawKb: number; gzipKb: number };
  assets: AssetSize[];
}

const KB = 1024;

function attribute(tag: string, name: string): string | null {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, "i").exec(tag);
  return match ? (match[1] ?? match[2] ?? match[3] ?? "") : null;
}

function gzipSize(data: Uint8Array | string): number {
  return gzipSync(data, { level: 9 }).length;
}

/** Fetches `pagePath`, then every script and modulepreload it references; sums raw and gzip sizes. */
async function measureClientJs(baseUrl: string, pagePath: string): Promise<ClientJsReport> {
  const pageUrl = new URL(pagePath, baseUrl);
  const response = await fetch(pageUrl);
  if (response.status !== 200) throw new Error(`GET ${pagePath} answered ${response.status}`);
  const html = await response.text();

  const found = new Map<string, string>();
  const add = (href: string | null, source: string) => {
    if (!href) return;
    const url = new URL(href, pageUrl).href;
    if (!found.has(url)) found.set(url, source);
  };

  const inline: string[] = [];
  for (const match of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
    const attributes = match[1] ?? "";
    const content = match[2] ?? "";
    const src = attribute(attributes, "src");
    if (src !== null) {
      add(src, "script[src]");
      continue;
    }
    if (content.trim() === "") continue;
    inline.push(content);
    // Modules imported by inline module scripts (React Router's bootstrap) are client JS too.
    for (const specifier of content.matchAll(
      /\b(?:import|from)\s*\(?\s*["']([^"']+\.m?js(?:\?[^"']*)?)["']/g,
    )) {
      add(specifier[1] ?? null, "inline import");
    }
  }
  for (const match of html.matchAll(/<link\b[^>]*>/gi)) {
    const tag = match[0];
    const rel = attribute(tag, "rel")?.toLowerCase().split(/\s+/) ?? [];
    if (rel.includes("modulepreload")) add(attribute(tag, "href"), "link[rel=modulepreload]");
  }

  const assets: AssetSize[] = [];
  for (const [url, source] of found) {
    const asset = await fetch(url);
    const bytes = new Uint8Array(await asset.arrayBuffer());
    assets.push({
      url: new URL(url).pathname,
      source,
      status: asset.status,
      rawBytes: bytes.length,
      gzipBytes: gzipSize(bytes),
    });
  }
  const inlineText = inline.join("\n");
  return {
    page: pagePath,
    files: assets.length,
    rawKb: round(assets.reduce((sum, asset) => sum + asset.rawBytes, 0) / KB, 1),
    gzipKb: round(assets.reduce((sum, asset) => sum + asset.gzipBytes, 0) / KB, 1),
    inlineScripts: {
      count: inline.length,
      rawKb: round(Buffer.byteLength(inlineText) / KB, 1),
      gzipKb: round(inlineText === "" ? 0 : gzipSize(inlineText) / KB, 1),
    },
    assets,
  };
}

// ---------------------------------------------------------------------------------------------
// Run

interface ScenarioResult extends LoadSummary {
  profile: ProfileName;
  path: string;
  /** One request after the warm-up: its status and x-page-cache header (hit, miss or none). */
  probe: { status: number; pageCache: string };
  /** "fixed": a counted number of requests (writing scenarios); else a timed run */
  mode: "duration" | "fixed";
  count: CountCheck | null;
  /** the server's CPU time (user + system) per request of the run, ms; null without /proc */
  cpuMsPerRequest: number | null;
}

/** Server CPU per request over a run, from two readings of /proc; null without them. */
function cpuPerRequest(
  before: number | null,
  after: number | null,
  result: { requests: { total: number } },
): number | null {
  if (before === null || after === null || result.requests.total === 0) return null;
  return round((after - before) / result.requests.total, 2);
}

async function probe(
  url: string,
  headers?: Record<string, string>,
): Promise<ScenarioResult["probe"]> {
  const response = await fetch(url, { headers, redirect: "manual" });
  await response.arrayBuffer();
  return { status: response.status, pageCache: response.headers.get("x-page-cache") ?? "none" };
}

const BARE_RATIO_TARGET = 0.35;

/**
 * The same load against `bench/bare-server.mjs` (a child process, as Herald is) sending `bytes`:
 * the ceiling the cached page is compared with, measured in the same run.
 */
async function measureBare(
  bytes: Buffer,
  warmupSeconds: number,
  durationSeconds: number,
): Promise<LoadSummary & { bytes: number }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "herald-bare-"));
  const file = path.join(dir, "page.html");
  writeFileSync(file, bytes);
  const port = await findFreePort();
  const child = spawn(process.execPath, [path.join(repoRoot, "bench", "bare-server.mjs")], {
    env: { ...process.env, BARE_FILE: file, PORT: String(port) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`bare server exited (${code})`)));
      child.stdout?.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("listening")) resolve();
      });
    });
    const url = `http://127.0.0.1:${port}/`;
    console.log(
      `  bare node:http (${bytes.length} bytes): warm-up ${warmupSeconds} s, run ${durationSeconds} s`,
    );
    await runLoad({ url, connections: CONNECTIONS, durationSeconds: warmupSeconds });
    const result = await runLoad({ url, connections: CONNECTIONS, durationSeconds });
    return { ...summarize("bare node:http", result), bytes: bytes.length };
  } finally {
    child.removeAllListeners("exit");
    child.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Issue 17, target 3: the server's memory through a minute of mixed load

const MIXED_RSS_TARGET_MB = 250;

interface MixedStream {
  label: string;
  connections: number;
  /** what a 3xx means here: a form post answered with its redirect is a success */
  redirectsOk?: boolean;
  requests: autocannon.Request[];
  headers?: Record<string, string>;
}

interface MixedResult {
  durationSeconds: number;
  streams: (LoadSummary & { failed: number })[];
  rss: RssReport;
  /** the highest RSS of each second, MB */
  rssBySecond: number[];
  targetMb: number;
  met: boolean;
}

/**
 * One server (page cache on, behind a trusted proxy so each form post can come from its own
 * address), loaded for `durationSeconds` at once by anonymous readers of cached pages, readers of
 * rendered pages (campaign links carry a query string, which the cache does not serve; search),
 * signed-in staff, and sign-up form posts; its RSS sampled every 100 ms.
 */
async function measureMixedLoad(
  durationSeconds: number,
  warmupSeconds: number,
): Promise<MixedResult> {
  const server = await startServer({ name: "mixed", env: { TRUST_PROXY: "loopback" } });
  const sampler = new RssSampler(server.pid);
  const rssBySecond: number[] = [];
  try {
    const page = await seedNewsletterPage(server);
    await page.close?.();
    const cookie = await staffCookie(server);
    let posts = 0;
    let searches = 0;
    const streams: MixedStream[] = [
      {
        label: "anonymous, cached pages",
        connections: 8,
        requests: ["/", "/about", "/newsletter", page.path, "/services"].map((path) => ({ path })),
      },
      {
        label: "anonymous, rendered pages",
        connections: 4,
        requests: [
          "/?utm_source=newsletter",
          `${page.path}?utm_source=newsletter`,
          "/newsletter/search?q=protocol",
          "/newsletter?utm_medium=email",
        ].map((path) => ({
          path,
          // Search is limited per address (30 a minute): each search comes from its own reader.
          // Left out, not undefined, elsewhere: autocannon's default would be overwritten by it.
          ...(path.startsWith("/newsletter/search") && {
            setupRequest: (request: autocannon.Request) => {
              searches += 1;
              return {
                ...request,
                headers: {
                  ...request.headers,
                  "x-forwarded-for": `10.128.${(searches >> 8) & 255}.${searches & 255}`,
                },
              };
            },
          }),
        })),
      },
      {
        label: "signed-in staff",
        connections: 4,
        headers: { cookie },
        requests: ["/admin/dashboard", "/admin/subscribers", "/admin/cms", "/"].map((path) => ({
          path,
        })),
      },
      {
        label: "sign-up form posts",
        connections: 2,
        redirectsOk: true,
        requests: [
          {
            method: "POST",
            path: "/newsletter/subscribe",
            setupRequest(request) {
              posts += 1;
              return {
                ...request,
                headers: {
                  ...request.headers,
                  "content-type": "application/x-www-form-urlencoded",
                  "x-forwarded-for": `10.${(posts >> 16) & 255}.${(posts >> 8) & 255}.${posts & 255}`,
                },
                body: `email=mixed-${server.port}-${posts}%40example.com&page=%2F`,
              };
            },
          },
        ],
      },
    ];
    const run = (seconds: number) =>
      Promise.all(
        streams.map((stream) =>
          autocannon({
            url: server.baseUrl,
            connections: stream.connections,
            duration: seconds,
            headers: stream.headers,
            requests: stream.requests,
          }),
        ),
      );
    console.log(`  mixed load: warm-up ${warmupSeconds} s, run ${durationSeconds} s`);
    await run(warmupSeconds);
    sampler.start();
    const started = Date.now();
    const perSecond = setInterval(() => {
      const kb = readProcStatusKb(server.pid, "VmRSS");
      if (kb !== null) rssBySecond.push(round(kb / 1024, 1));
    }, 1_000);
    const results = await run(durationSeconds).finally(() => clearInterval(perSecond));
    const rss = sampler.stop();
    const elapsed = (Date.now() - started) / 1000;
    return {
      durationSeconds: round(elapsed, 1),
      streams: results.map((result, index) => {
        const stream = streams[index] as MixedStream;
        const redirects = stream.redirectsOk ? result["3xx"] : 0;
        return {
          ...summarize(stream.label, result),
          failed: result.non2xx - redirects + result.errors,
        };
      }),
      rss,
      rssBySecond,
      targetMb: MIXED_RSS_TARGET_MB,
      met: rss.peakMb !== null && rss.peakMb <= MIXED_RSS_TARGET_MB,
    };
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const durationSeconds = envSeconds("BENCH_DURATION", 10);
  const warmupSeconds = envSeconds("BENCH_WARMUP", 2);
  ensureBuild();

  const results = new Map<Scenario, ScenarioResult>();
  const rss: Partial<Record<ProfileName, RssReport & { pid: number }>> = {};
  let clientJs: ClientJsReport | undefined;
  let bareBytes: Buffer | null = null;

  // BENCH_ONLY="newsletter" runs the scenarios whose label contains that text.
  const only = process.env.BENCH_ONLY;
  const chosen = only ? scenarios.filter((scenario) => scenario.label.includes(only)) : scenarios;
  const order = [...new Set(chosen.map((scenario) => scenario.profile))];
  for (const profile of order) {
    console.log(`Starting server (${profiles[profile].description}) …`);
    const server = await startServer({ name: profile, env: profiles[profile].env });
    const sampler = new RssSampler(server.pid).start();
    try {
      clientJs ??= await measureClientJs(server.baseUrl, "/");
      for (const scenario of chosen.filter((each) => each.profile === profile)) {
        const prepared =
          typeof scenario.path === "string" ? { path: scenario.path } : await scenario.path(server);
        try {
          const url = `${server.baseUrl}${prepared.path}`;
          const headers = { ...scenario.headers, ...prepared.headers };
          const load = { url, connections: CONNECTIONS, headers };
          if (prepared.check) {
            // Fixed counts: every request is answered, so the database can be checked exactly.
            const warmupAmount = Math.max(CONNECTIONS, Math.round(warmupSeconds * 400));
            console.log(
              `  ${scenario.label}: warm-up ${warmupAmount} requests, run ≈ ${durationSeconds} s`,
            );
            const warm = await runFixedLoad({ ...load, amount: warmupAmount });
            const checked = await probe(url, headers);
            const rate = warm.result.requests.total / warm.elapsedSeconds;
            const amount = Math.max(CONNECTIONS, Math.round(rate * durationSeconds));
            const cpuBefore = readProcCpuMs(server.pid);
            const run = await runFixedLoad({ ...load, amount });
            const cpuMs = cpuPerRequest(cpuBefore, readProcCpuMs(server.pid), run.result);
            const answered =
              warm.result["2xx"] +
              (checked.status >= 200 && checked.status < 300 ? 1 : 0) +
              run.result["2xx"];
            results.set(scenario, {
              ...summarize(scenario.label, run.result),
              durationSeconds: round(run.elapsedSeconds, 2),
              reqPerSec: round(run.result.requests.total / run.elapsedSeconds, 1),
              profile,
              path: prepared.path,
              probe: checked,
              mode: "fixed",
              count: await prepared.check(answered),
              cpuMsPerRequest: cpuMs,
            });
          } else {
            console.log(
              `  ${scenario.label}: warm-up ${warmupSeconds} s, run ${durationSeconds} s`,
            );
            await runLoad({ ...load, durationSeconds: warmupSeconds });
            const checked = await probe(url, headers);
            const cpuBefore = readProcCpuMs(server.pid);
            const result = await runLoad({ ...load, durationSeconds });
            const cpuMs = cpuPerRequest(cpuBefore, readProcCpuMs(server.pid), result);
            results.set(scenario, {
              ...summarize(scenario.label, result),
              profile,
              path: prepared.path,
              probe: checked,
              mode: "duration",
              count: null,
              cpuMsPerRequest: cpuMs,
            });
          }
        } finally {
          await prepared.close?.();
        }
        // The page the bare baseline sends: the newsletter page as Herald serves it.
        if (scenario.label === NEWSLETTER_SCENARIO) {
          bareBytes = Buffer.from(
            await (await fetch(`${server.baseUrl}${prepared.path}`)).arrayBuffer(),
          );
        }
      }
    } finally {
      rss[profile] = { pid: server.pid, ...sampler.stop() };
      await server.stop();
    }
  }

  const rows = scenarios.flatMap((scenario) => {
    const result = results.get(scenario);
    return result ? [result] : [];
  });
  // Issue 17: the cached newsletter page against a bare node:http server sending the same bytes.
  const bare = bareBytes ? await measureBare(bareBytes, warmupSeconds, durationSeconds) : null;
  // BENCH_MIXED_DURATION=0 skips the minute of mixed load; so does BENCH_ONLY, unless it is set.
  const mixedSeconds =
    only && !process.env.BENCH_MIXED_DURATION ? 0 : envSeconds("BENCH_MIXED_DURATION", 60);
  const mixed = mixedSeconds > 0 ? await measureMixedLoad(mixedSeconds, warmupSeconds) : null;
  const cachedPage = rows.find((row) => row.label === NEWSLETTER_SCENARIO);
  const bareRatio = bare && cachedPage ? round(cachedPage.reqPerSec / bare.reqPerSec, 2) : null;
  const warnings: string[] = [];
  for (const row of rows) {
    if (row.probe.status !== 200) warnings.push(`${row.label}: probe answered ${row.probe.status}`);
    if (row.non2xx > 0) warnings.push(`${row.label}: ${row.non2xx} non-2xx responses`);
    if (row.errors > 0)
      warnings.push(`${row.label}: ${row.errors} errors (${row.timeouts} timeouts)`);
    if (row.count && !row.count.ok) {
      warnings.push(
        `${row.label}: ${row.count.what} counted ${row.count.counted}, expected ${row.count.expected}`,
      );
    }
  }
  if (clientJs) {
    for (const asset of clientJs.assets) {
      if (asset.status !== 200) warnings.push(`client JS ${asset.url} answered ${asset.status}`);
    }
  }

  const targets = TARGETS.map((target) => {
    const row = rows.find((each) => each.label === target.scenario);
    const met = row ? row.reqPerSec >= target.minReqPerSec && row.p99Ms <= target.maxP99Ms : null;
    return { ...target, met };
  });
  const machine = machineInfo();

  // ------- stdout
  console.log("");
  console.log(
    `Herald HTTP benchmark: ${CONNECTIONS} connections, ${durationSeconds} s per scenario ` +
      `(after ${warmupSeconds} s warm-up)`,
  );
  console.log("");
  console.log(
    formatTable(
      ["scenario", "req/s", "p50 ms", "p99 ms", "CPU ms/req", "requests", "non-2xx"],
      rows.map((row) => [
        row.label,
        row.reqPerSec.toFixed(0),
        String(row.p50Ms),
        String(row.p99Ms),
        row.cpuMsPerRequest === null ? "–" : row.cpuMsPerRequest.toFixed(2),
        String(row.requests),
        String(row.non2xx),
      ]),
      ["left", "right", "right", "right", "right", "right", "right"],
    ),
  );
  console.log("");
  for (const profile of order) {
    const report = rss[profile];
    if (!report) continue;
    const peak = report.peakMb === null ? "n/a (no /proc)" : `${report.peakMb} MB`;
    console.log(
      `Peak RSS (${profiles[profile].description}): ${peak}` +
        ` (sampled max ${report.sampledPeakMb ?? "n/a"} MB over ${report.samples} samples,` +
        ` VmHWM ${report.hwmMb ?? "n/a"} MB)`,
    );
  }
  if (clientJs) {
    console.log(
      `Client JS (home page): ${clientJs.files} files, ${clientJs.rawKb} KB raw, ` +
        `${clientJs.gzipKb} KB gzip -9; plus ${clientJs.inlineScripts.count} inline scripts, ` +
        `${clientJs.inlineScripts.rawKb} KB raw, ${clientJs.inlineScripts.gzipKb} KB gzip`,
    );
  }
  console.log(
    `Machine: ${machine.cpus} × ${machine.cpuModel}, node ${machine.node}, ` +
      `${machine.platform} ${machine.release}, ${machine.totalMemoryMb} MB RAM`,
  );
  for (const row of rows) {
    if (row.count) {
      console.log(
        `${row.label}: ${row.count.what} counted: ${row.count.counted} of ${row.count.expected}` +
          ` (2xx responses, warm-up and probe included)${row.count.ok ? "" : " — MISMATCH"}`,
      );
    }
  }
  for (const target of targets) {
    const verdict = target.met === null ? "not measured" : target.met ? "met" : "NOT met";
    console.log(`${target.text} (${verdict})`);
  }
  if (bare) {
    console.log(
      `Bare node:http sending the newsletter page's ${bare.bytes} bytes from memory: ${bare.reqPerSec.toFixed(0)} req/s, p99 ${bare.p99Ms} ms` +
        (bareRatio === null
          ? ""
          : `; the cached newsletter page is ${bareRatio} of it (target ≥ ${BARE_RATIO_TARGET}: ${bareRatio >= BARE_RATIO_TARGET ? "met" : "NOT met"})`),
    );
  }
  if (mixed) {
    console.log("");
    console.log(`Mixed load, all at once for ${mixed.durationSeconds} s (page cache on):`);
    console.log(
      formatTable(
        ["stream", "connections", "req/s", "p99 ms", "requests", "failed"],
        mixed.streams.map((stream) => [
          stream.label,
          String(stream.connections),
          stream.reqPerSec.toFixed(0),
          String(stream.p99Ms),
          String(stream.requests),
          String(stream.failed),
        ]),
        ["left", "right", "right", "right", "right", "right"],
      ),
    );
    console.log(
      `Server RSS through the mixed load: peak ${mixed.rss.peakMb ?? "n/a"} MB` +
        ` (target ≤ ${mixed.targetMb} MB: ${mixed.met ? "met" : "NOT met"});` +
        ` per second: ${mixed.rssBySecond.join(", ")}`,
    );
    for (const stream of mixed.streams) {
      if (stream.failed > 0) warnings.push(`mixed load, ${stream.label}: ${stream.failed} failed`);
    }
  }
  for (const warning of warnings) console.log(`WARNING: ${warning}`);

  // ------- JSON
  const file = await writeResults("http.json", {
    timestamp: new Date().toISOString(),
    command: "npm run bench",
    env: {
      BENCH_DURATION: process.env.BENCH_DURATION ?? null,
      BENCH_WARMUP: process.env.BENCH_WARMUP ?? null,
      BENCH_MIXED_DURATION: process.env.BENCH_MIXED_DURATION ?? null,
    },
    connections: CONNECTIONS,
    durationSeconds,
    warmupSeconds,
    machine,
    scenarios: rows,
    rss,
    clientJs: clientJs ?? null,
    target: targets[0] ?? null,
    targets,
    counts: rows.flatMap((row) => (row.count ? [{ scenario: row.label, ...row.count }] : [])),
    bare: bare ? { ...bare, cachedNewsletterRatio: bareRatio, target: BARE_RATIO_TARGET } : null,
    mixed,
    warnings,
  });
  console.log(`\nWrote ${file}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
