/**
 * Two builds side by side: `npm run bench:compare -- <page> <before> <after> [rounds] [seconds]`.
 *
 * <page> is home, newsletter or dashboard (the rendered pages of `npm run bench`: page cache off;
 * the newsletter page with 1,500 words and 50 comments, the dashboard signed in with 1,000
 * newsletters). <before> and <after> are directories each holding a built Herald (server.js,
 * package.json, build/ and node_modules/), e.g. a worktree of an older commit after `npm ci && npm
 * run build`. Both servers start at once, each on a fresh SQLite, and are loaded in turns (the
 * order alternating each round) so that both see the machine's same minutes: on a machine whose
 * speed moves from minute to minute, only such a comparison says what a change did. Reports each
 * build's CPU time per request (from /proc), its req/s and its p99.
 */
import path from "node:path";
import { readProcCpuMs, runLoad, type ServerHandle, startServer } from "./lib";
import { type PreparedScenario, RENDERED_PAGES } from "./scenarios";

interface Side {
  name: string;
  server: ServerHandle;
  scenario: PreparedScenario;
  cpuMs: number[];
  reqPerSec: number[];
  p99Ms: number[];
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

async function main() {
  const [page = "", before, after, roundsArg = "6", secondsArg = "4"] = process.argv.slice(2);
  const prepare = RENDERED_PAGES[page];
  const rounds = Number(roundsArg);
  const seconds = Number(secondsArg);
  if (!prepare || !before || !after || !(rounds > 0) || !(seconds > 0)) {
    console.error(
      "usage: npm run bench:compare -- home|newsletter|dashboard <before dir> <after dir> [rounds] [seconds]",
    );
    process.exitCode = 2;
    return;
  }
  const sides: Side[] = [];
  try {
    for (const [name, dir] of [
      ["before", before],
      ["after", after],
    ] as const) {
      const root = path.resolve(dir);
      const server = await startServer({ root, name, env: { PAGE_CACHE: "off" } });
      const scenario = await prepare(server);
      const url = server.baseUrl + scenario.path;
      const probe = await fetch(url, { headers: scenario.headers });
      if (probe.status !== 200)
        throw new Error(`${name} (${root}): ${page} answered ${probe.status}`);
      await runLoad({ url, headers: scenario.headers, durationSeconds: 3 });
      sides.push({
        name: `${name} (${dir})`,
        server,
        scenario,
        cpuMs: [],
        reqPerSec: [],
        p99Ms: [],
      });
    }
    for (let round = 0; round < rounds; round++) {
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        const url = side.server.baseUrl + side.scenario.path;
        const cpuBefore = readProcCpuMs(side.server.pid);
        const result = await runLoad({
          url,
          headers: side.scenario.headers,
          durationSeconds: seconds,
        });
        const cpuAfter = readProcCpuMs(side.server.pid);
        if (result.non2xx > 0 || result.errors > 0) {
          throw new Error(`${side.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
        }
        const cpuMs =
          cpuBefore === null || cpuAfter === null
            ? Number.NaN
            : (cpuAfter - cpuBefore) / result.requests.total;
        side.cpuMs.push(cpuMs);
        side.reqPerSec.push(result.requests.average);
        side.p99Ms.push(result.latency.p99);
        console.log(
          `round ${round + 1} ${side.name}: ${result.requests.average} req/s, p99 ${result.latency.p99} ms, ${cpuMs.toFixed(3)} ms CPU a request`,
        );
      }
    }
    console.log(`\n${page}, ${rounds} rounds of ${seconds} s, 20 connections, page cache off:`);
    for (const side of sides) {
      console.log(
        `  ${side.name}: CPU ${median(side.cpuMs).toFixed(2)} ms a request (median), ` +
          `${Math.min(...side.reqPerSec)}–${Math.max(...side.reqPerSec)} req/s, ` +
          `p99 ${median(side.p99Ms)} ms (median)`,
      );
    }
  } finally {
    for (const side of sides) await side.scenario.close?.();
    for (const side of sides) await side.server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
