/**
 * Start-up of two builds side by side: `npm run bench:startup -- <before> <after> [runs]`.
 *
 * <before> and <after> are directories each holding a built Herald (server.js, package.json,
 * build/ and node_modules/), as for `npm run bench:compare`. Each run starts both, one after the
 * other (the order alternating), with `npm start`'s Node flags in production mode on a fresh
 * SQLite file, and notes for each:
 * - fresh: milliseconds from spawning `node server.js` to its "listening" line (migrations and the
 *   seed included: a fresh clone's first start);
 * - restart: the same on the database the first start left (what every later start costs);
 * - the resident memory (VmRSS) once listening and quiet, and again after a few page requests.
 * Medians over the runs, with the load average beside them: the machine may be busy, and only the
 * two builds' figures from the same minutes compare.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  findFreePort,
  machineInfo,
  readProcStatusKb,
  round,
  sleep,
  startFlags,
  writeResults,
} from "./lib";

/** Pages a first visitor and a staff member would open (none needs an account). */
const PAGES = ["/", "/newsletter", "/admin/login", "/healthz"];
/** Quiet time before reading the RSS: the start's last allocations settle. */
const SETTLE_MS = 1_000;

interface Start {
  ms: number;
  idleRssMb: number;
  afterRequestsRssMb: number;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** Starts the built server in `root` on `databaseUrl`, measures it as above, and stops it. */
async function startOnce(root: string, databaseUrl: string): Promise<Start> {
  const port = await findFreePort();
  const began = performance.now();
  const child = spawn(process.execPath, [...startFlags(root), "server.js"], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  try {
    const ms = await new Promise<number>((resolve, reject) => {
      let output = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        if (/listening on/.test(output)) resolve(performance.now() - began);
      });
      child.stderr?.on("data", (chunk: Buffer) => {
        output += chunk.toString();
      });
      child.once("exit", (code) =>
        reject(new Error(`${root}: server exited (${code}) before listening:\n${output}`)),
      );
    });
    const rssMb = () => (readProcStatusKb(child.pid ?? -1, "VmRSS") ?? Number.NaN) / 1024;
    await sleep(SETTLE_MS);
    const idleRssMb = rssMb();
    for (const page of PAGES) {
      for (let i = 0; i < 3; i++) {
        const response = await fetch(`http://127.0.0.1:${port}${page}`);
        await response.arrayBuffer();
        if (response.status >= 500) throw new Error(`${root}: ${page} answered ${response.status}`);
      }
    }
    await sleep(SETTLE_MS);
    return { ms, idleRssMb, afterRequestsRssMb: rssMb() };
  } finally {
    await stop(child);
  }
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

async function main() {
  const [before, after, runsArg = "7"] = process.argv.slice(2);
  const runs = Number(runsArg);
  if (!before || !after || !(runs > 0)) {
    console.error("usage: npm run bench:startup -- <before dir> <after dir> [runs]");
    process.exitCode = 2;
    return;
  }
  const sides = [
    { name: "before", root: path.resolve(before), fresh: [] as Start[], restart: [] as Start[] },
    { name: "after", root: path.resolve(after), fresh: [] as Start[], restart: [] as Start[] },
  ];
  const loads: number[] = [];
  for (let run = 0; run < runs; run++) {
    for (const side of run % 2 === 0 ? sides : [...sides].reverse()) {
      const dir = mkdtempSync(path.join(os.tmpdir(), `herald-startup-${side.name}-`));
      try {
        const databaseUrl = `file:${path.join(dir, "herald.db")}`;
        side.fresh.push(await startOnce(side.root, databaseUrl));
        side.restart.push(await startOnce(side.root, databaseUrl));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      loads.push(os.loadavg()[0] ?? Number.NaN);
    }
    console.log(
      `run ${run + 1}/${runs}: ${sides
        .map((side) => {
          const fresh = side.fresh.at(-1);
          const restart = side.restart.at(-1);
          return `${side.name} ${Math.round(fresh?.ms ?? 0)}/${Math.round(restart?.ms ?? 0)} ms`;
        })
        .join(", ")} (load ${os.loadavg()[0]?.toFixed(1)})`,
    );
  }
  const summary = sides.map((side) => ({
    name: side.name,
    root: side.root,
    freshStartMs: round(median(side.fresh.map((start) => start.ms)), 0),
    restartMs: round(median(side.restart.map((start) => start.ms)), 0),
    idleRssMb: round(median(side.restart.map((start) => start.idleRssMb)), 1),
    afterRequestsRssMb: round(median(side.restart.map((start) => start.afterRequestsRssMb)), 1),
  }));
  const loadAverage = { min: round(Math.min(...loads), 1), max: round(Math.max(...loads), 1) };
  console.table(summary);
  console.log(`load average (1 min) during the runs: ${loadAverage.min}–${loadAverage.max}`);
  const file = await writeResults("startup.json", {
    command: `npm run bench:startup -- ${before} ${after} ${runs}`,
    at: new Date().toISOString(),
    machine: machineInfo(),
    loadAverage,
    runs,
    summary,
    samples: sides.map(({ name, fresh, restart }) => ({ name, fresh, restart })),
  });
  console.log(`results: ${file}`);
}

await main();
