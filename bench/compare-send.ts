/**
 * Two senders side by side: `npm run bench:send -- --compare <before> <after> [rounds]`.
 *
 * <before> and <after> are checkouts each holding a built Herald (build/cli/herald.mjs and its
 * node_modules), e.g. a worktree of an older commit after `npm ci && npm run build`. Each prepares
 * one SQLite database with its own code (migrations, BENCH_SUBSCRIBERS subscribers — default
 * 10,000 — and a campaign to send now; BENCH_DKIM=rsa signs every message); each round copies it
 * and runs that checkout's real sender on the copy until the campaign is sent, the two in turns
 * with the order alternating each round, so both see the machine's same minutes. Reports per round
 * and as medians: messages/s and the sender's CPU time per message (from /proc, user + system) —
 * on a machine others share, CPU per message is the honest figure; messages/s moves with the
 * neighbours. BENCH_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") go to both senders.
 * Writes bench/results/send-compare.json.
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureBuild, formatTable, machineInfo, round, writeResults } from "./lib";
import { type PreparedSend, prepareSendDatabaseApart, runSender, type SenderRun } from "./send-lib";

const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 10_000);
const DKIM = process.env.BENCH_DKIM === "rsa" ? "rsa" : null;

interface Side {
  name: string;
  root: string;
  /** the prepared database, copied for each round */
  template: string;
  prepared: PreparedSend;
  runs: SenderRun[];
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

export async function compareSenders(before: string, after: string, rounds: number): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "herald-bench-send-compare-"));
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean);
  try {
    const sides: Side[] = [];
    for (const [name, checkout] of [
      ["before", before],
      ["after", after],
    ] as const) {
      const root = path.resolve(checkout);
      ensureBuild(root);
      const template = path.join(dir, `${name}.db`);
      console.log(
        `${name} (${checkout}): seeding ${SUBSCRIBERS.toLocaleString("en")} subscribers …`,
      );
      const prepared = await prepareSendDatabaseApart(root, `file:${template}`, SUBSCRIBERS, DKIM);
      sides.push({ name: `${name} (${checkout})`, root, template, prepared, runs: [] });
    }
    for (let round = 0; round < rounds; round++) {
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        // A closed SQLite database is one file (its WAL checkpointed at close): a copy is a fresh start.
        const copy = path.join(dir, `round-${round}.db`);
        copyFileSync(side.template, copy);
        try {
          const run = await runSender({
            root: side.root,
            databaseUrl: `file:${copy}`,
            campaignId: side.prepared.campaignId,
            nodeArgs,
            label: `round ${round + 1} ${side.name} `,
          });
          if (run.received !== SUBSCRIBERS || run.sent !== SUBSCRIBERS) {
            throw new Error(`${side.name}: ${run.received} received, ${run.sent} marked sent`);
          }
          side.runs.push(run);
          console.log(
            `round ${round + 1} ${side.name}: ${Math.round(run.messagesPerSecond)} msg/s ` +
              `(steady ${Math.round(run.steadyMessagesPerSecond)}), ` +
              `${run.senderCpuMsPerMessage.toFixed(3)} ms CPU a message ` +
              `(sending alone ${run.steadyCpuMsPerMessage.toFixed(3)}), peak RSS ${run.rss.peakMb} MB`,
          );
        } finally {
          for (const suffix of ["", "-wal", "-shm"]) rmSync(copy + suffix, { force: true });
        }
      }
    }

    const summary = sides.map((side) => ({
      side: side.name,
      messagesPerSecond: Math.round(median(side.runs.map((run) => run.messagesPerSecond))),
      steadyMessagesPerSecond: Math.round(
        median(side.runs.map((run) => run.steadyMessagesPerSecond)),
      ),
      senderCpuMsPerMessage: round(median(side.runs.map((run) => run.senderCpuMsPerMessage)), 3),
      steadyCpuMsPerMessage: round(median(side.runs.map((run) => run.steadyCpuMsPerMessage)), 3),
      peakRssMb: round(median(side.runs.map((run) => run.rss.peakMb ?? Number.NaN)), 1),
      rounds: side.runs.map((run) => ({
        messagesPerSecond: Math.round(run.messagesPerSecond),
        senderCpuMsPerMessage: round(run.senderCpuMsPerMessage, 3),
        steadyCpuMsPerMessage: round(run.steadyCpuMsPerMessage, 3),
      })),
    }));
    console.log(
      `\nSQLite, ${SUBSCRIBERS.toLocaleString("en")} recipients, DKIM ${DKIM ?? "off"}, ${rounds} rounds, medians (load average ${os
        .loadavg()
        .map((load) => load.toFixed(2))
        .join(" ")}):\n`,
    );
    console.log(
      formatTable(
        [
          "sender",
          "msg/s",
          "steady msg/s",
          "CPU ms/msg",
          "sending CPU ms/msg",
          "peak RSS (MB)",
          "msg/s each round",
        ],
        summary.map((side) => [
          side.side,
          String(side.messagesPerSecond),
          String(side.steadyMessagesPerSecond),
          String(side.senderCpuMsPerMessage),
          String(side.steadyCpuMsPerMessage),
          String(side.peakRssMb),
          side.rounds.map((each) => each.messagesPerSecond).join(", "),
        ]),
        ["left", "right", "right", "right", "right", "right", "left"],
      ),
    );
    const file = await writeResults("send-compare.json", {
      date: new Date().toISOString(),
      machine: machineInfo(),
      loadAverage: os.loadavg(),
      database: "sqlite",
      subscribers: SUBSCRIBERS,
      dkim: DKIM ?? "off",
      summary,
    });
    console.log(`\nwritten to ${file}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
