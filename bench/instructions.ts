/**
 * Instructions a rendered page costs: `npm run bench:instructions -- <page> <build> [build …]
 * [--warm N] [--requests N]`.
 *
 * <page> is one of bench:compare's (home, newsletter, dashboard); each <build> a directory holding
 * a built Herald, as for bench:compare. Each server runs under `valgrind --tool=callgrind` with its
 * counting off, is warmed up with `--warm` requests (default 1,000), then counts the instructions
 * of all its threads over `--requests` more (default 500). Unlike CPU time, the count does not move
 * with what else the machine is doing (decision 053), so the builds run at once. It is a count, not
 * a time: memory stalls (allocation, cache misses) do not show in it, and valgrind makes the
 * server some 50–80 times slower, so a run takes minutes. Needs valgrind (`apt-get install
 * valgrind`).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { formatTable, runFixedLoad, sleep, startServer } from "./lib";
import { RENDERED_PAGES } from "./scenarios";

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  const value = at === -1 ? fallback : Number(process.argv[at + 1]);
  if (!(value > 0)) throw new Error(`${name} needs a positive number`);
  return value;
}

/** The instructions callgrind counted, from its dump files (one per process and thread dump). */
function countedInstructions(dir: string): number {
  let total = 0;
  for (const file of readdirSync(dir).filter((name) => name.startsWith("callgrind.out"))) {
    const totals = /^totals:\s+(\d+)/m.exec(readFileSync(path.join(dir, file), "utf8"));
    total += Number(totals?.[1] ?? 0);
  }
  return total;
}

/** Waits for callgrind's dump to be written (it answers the dump command before it is). */
async function dumpedInstructions(dir: string): Promise<number> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const total = countedInstructions(dir);
    if (total > 0) return total;
    await sleep(100);
  }
  throw new Error(`no callgrind dump in ${dir}`);
}

async function measure(page: string, root: string, warm: number, requests: number) {
  const prepare = RENDERED_PAGES[page];
  if (!prepare) throw new Error(`no page ${page}`);
  const server = await startServer({
    root,
    name: path.basename(root),
    env: { PAGE_CACHE: "off" },
    readyTimeoutMs: 600_000,
    runUnder: (tempDir) => [
      "valgrind",
      "--tool=callgrind",
      "--instr-atstart=no",
      `--callgrind-out-file=${path.join(tempDir, "callgrind.out.%p")}`,
    ],
  });
  try {
    const scenario = await prepare(server);
    const url = server.baseUrl + scenario.path;
    await runFixedLoad({ url, headers: scenario.headers, connections: 4, amount: warm });
    execFileSync("callgrind_control", ["-i", "on", String(server.pid)]);
    const { result } = await runFixedLoad({
      url,
      headers: scenario.headers,
      connections: 4,
      amount: requests,
    });
    execFileSync("callgrind_control", ["-i", "off", String(server.pid)]);
    execFileSync("callgrind_control", ["-d", String(server.pid)]);
    const counted = await dumpedInstructions(server.tempDir);
    if (result.non2xx > 0 || result.errors > 0) {
      throw new Error(`${root}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
    }
    await scenario.close?.();
    return counted / requests;
  } finally {
    await server.stop();
  }
}

async function main() {
  const [page = "", ...rest] = process.argv.slice(2);
  const roots = rest.filter(
    (arg, index) => !arg.startsWith("--") && !rest[index - 1]?.startsWith("--"),
  );
  if (!RENDERED_PAGES[page] || roots.length === 0) {
    console.error(
      "usage: npm run bench:instructions -- home|newsletter|dashboard <build> [build …] [--warm N] [--requests N]",
    );
    process.exitCode = 2;
    return;
  }
  if (spawnSync("valgrind", ["--version"]).status !== 0) {
    console.error("valgrind is not installed: apt-get install valgrind");
    process.exitCode = 2;
    return;
  }
  const warm = option("--warm", 1_000);
  const requests = option("--requests", 500);
  const counts = await Promise.all(
    roots.map((root) => measure(page, path.resolve(root), warm, requests)),
  );
  const first = counts[0] ?? 1;
  console.log(
    `\n${page}: instructions a request, all threads, ${requests} requests after ${warm} (callgrind)\n`,
  );
  console.log(
    formatTable(
      ["build", "instructions a request", "against the first"],
      roots.map((root, index) => [
        root,
        `${((counts[index] ?? 0) / 1e6).toFixed(2)} M`,
        ((counts[index] ?? 0) / first).toFixed(3),
      ]),
      ["left", "right", "right"],
    ),
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
