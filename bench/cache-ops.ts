/**
 * The page cache's cost per operation (issue 34): a hit (get of a hot page), and a set of a new page
 * into a full cache (which evicts), in nanoseconds, best of five rounds. `npx tsx bench/cache-ops.ts`.
 * A micro-benchmark for a machine too busy for `npm run bench:http`; run it before and after.
 */
import { type CachedPage, PageCache, splitPage } from "../server/http/page-cache";

const body = "<!DOCTYPE html>".padEnd(40_000, "x");
const page = (): CachedPage => ({
  status: 200,
  headers: [["content-type", "text/html; charset=utf-8"]],
  parts: splitPage(body, []),
  nonce: "n",
  tenantVersion: "v1",
  storedAt: Date.now(),
});

function nsPerOp(rounds: number, ops: number, run: (i: number) => void): number {
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < rounds; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < ops; i++) run(i);
    best = Math.min(best, Number(process.hrtime.bigint() - start) / ops);
  }
  return best;
}

const cache = new PageCache();
const hot = page();
for (let i = 0; i < 100; i++) cache.set("main", `/hot/${i}`, hot);
let sink = 0;
const hit = nsPerOp(5, 1_000_000, (i) => {
  sink += cache.get("main", `/hot/${i % 100}`, "v1")?.status ?? 0;
});
// Sets of ever new paths: the cache fills, then every set evicts the least recently used.
const fresh = page();
const set = nsPerOp(5, 200_000, (i) => cache.set("main", `/crawl/${i}`, fresh));
console.log(
  JSON.stringify({
    hitNs: Math.round(hit),
    setNs: Math.round(set),
    entries: cache.size,
    sink: sink > 0,
  }),
);
