/**
 * HTTP benchmark of the production build: `npm run bench` (BENCH_DURATION=2 for a quick check).
 *
 * Starts `node server.js` (NODE_ENV=production, fresh SQLite database) on a free port, loads each
 * scenario with autocannon (warm-up, then 20 connections for BENCH_DURATION seconds), samples the
 * server's RSS, measures the home page's client JavaScript, prints a table and writes
 * bench/results/http.json.
 */
import { gzipSync } from "node:zlib";
import {
  ensureBuild,
  envSeconds,
  formatTable,
  type LoadSummary,
  machineInfo,
  type RssReport,
  RssSampler,
  round,
  runLoad,
  type ServerHandle,
  startServer,
  summarize,
  writeResults,
} from "./lib";

const CONNECTIONS = 20;
const TARGET = { path: "/", minReqPerSec: 1500, maxP99Ms: 50 } as const;
const TARGET_TEXT = "target: GET / ≥ 1500 req/s, p99 ≤ 50 ms";

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
  /** A path, or a function that finds one on the running server (e.g. a newsletter's id). */
  path: string | ((server: ServerHandle) => Promise<string>);
  headers?: Record<string, string>;
}

const scenarios: Scenario[] = [
  { label: "GET /", profile: "default", path: "/" },
  { label: "GET /about", profile: "default", path: "/about" },
  { label: "GET / (page cache off)", profile: "pageCacheOff", path: "/" },
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
}

async function probe(url: string): Promise<ScenarioResult["probe"]> {
  const response = await fetch(url);
  await response.arrayBuffer();
  return { status: response.status, pageCache: response.headers.get("x-page-cache") ?? "none" };
}

async function main(): Promise<void> {
  const durationSeconds = envSeconds("BENCH_DURATION", 10);
  const warmupSeconds = envSeconds("BENCH_WARMUP", 2);
  ensureBuild();

  const results = new Map<Scenario, ScenarioResult>();
  const rss: Partial<Record<ProfileName, RssReport & { pid: number }>> = {};
  let clientJs: ClientJsReport | undefined;

  const order = [...new Set(scenarios.map((scenario) => scenario.profile))];
  for (const profile of order) {
    console.log(`Starting server (${profiles[profile].description}) …`);
    const server = await startServer({ name: profile, env: profiles[profile].env });
    const sampler = new RssSampler(server.pid).start();
    try {
      clientJs ??= await measureClientJs(server.baseUrl, "/");
      for (const scenario of scenarios.filter((each) => each.profile === profile)) {
        const path =
          typeof scenario.path === "string" ? scenario.path : await scenario.path(server);
        const url = `${server.baseUrl}${path}`;
        const load = { url, connections: CONNECTIONS, headers: scenario.headers };
        console.log(`  ${scenario.label}: warm-up ${warmupSeconds} s, run ${durationSeconds} s`);
        await runLoad({ ...load, durationSeconds: warmupSeconds });
        const checked = await probe(url);
        const result = await runLoad({ ...load, durationSeconds });
        results.set(scenario, {
          ...summarize(scenario.label, result),
          profile,
          path,
          probe: checked,
        });
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
  const warnings: string[] = [];
  for (const row of rows) {
    if (row.probe.status !== 200) warnings.push(`${row.label}: probe answered ${row.probe.status}`);
    if (row.non2xx > 0) warnings.push(`${row.label}: ${row.non2xx} non-2xx responses`);
    if (row.errors > 0)
      warnings.push(`${row.label}: ${row.errors} errors (${row.timeouts} timeouts)`);
  }
  if (clientJs) {
    for (const asset of clientJs.assets) {
      if (asset.status !== 200) warnings.push(`client JS ${asset.url} answered ${asset.status}`);
    }
  }

  const home = rows.find((row) => row.profile === "default" && row.path === TARGET.path);
  const targetMet = home
    ? home.reqPerSec >= TARGET.minReqPerSec && home.p99Ms <= TARGET.maxP99Ms
    : null;
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
      ["scenario", "req/s", "p50 ms", "p99 ms", "requests", "non-2xx"],
      rows.map((row) => [
        row.label,
        row.reqPerSec.toFixed(0),
        String(row.p50Ms),
        String(row.p99Ms),
        String(row.requests),
        String(row.non2xx),
      ]),
      ["left", "right", "right", "right", "right", "right"],
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
  const verdict = targetMet === null ? "not measured" : targetMet ? "met" : "NOT met";
  console.log(`${TARGET_TEXT} (${verdict})`);
  for (const warning of warnings) console.log(`WARNING: ${warning}`);

  // ------- JSON
  const file = await writeResults("http.json", {
    timestamp: new Date().toISOString(),
    command: "npm run bench",
    env: {
      BENCH_DURATION: process.env.BENCH_DURATION ?? null,
      BENCH_WARMUP: process.env.BENCH_WARMUP ?? null,
    },
    connections: CONNECTIONS,
    durationSeconds,
    warmupSeconds,
    machine,
    scenarios: rows,
    rss,
    clientJs: clientJs ?? null,
    target: { text: TARGET_TEXT, ...TARGET, met: targetMet },
    warnings,
  });
  console.log(`\nWrote ${file}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
