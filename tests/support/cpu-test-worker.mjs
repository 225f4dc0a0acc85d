import { threadId } from "node:worker_threads";

/* A worker for the CPU pool's own test (server/cpu/pool.test.ts): where it runs, and runaways. */
export default function run(task) {
  if (task === "thread") return threadId;
  if (task === "spin") for (;;) {}
  if (task === "grow") {
    const kept = [];
    for (;;) kept.push(new Array(1_000_000).fill(kept.length));
  }
  throw new Error(`no task ${task}`);
}
