/**
 * Two senders side by side: `npm run bench:send -- --compare <before> <after> [rounds]`.
 *
 * <before> and <after> are checkouts each holding a built Herald (build/cli/herald.mjs and its
 * node_modules), e.g. a worktree of an older commit after `npm ci && npm run build`. Each prepares
 * one SQLite database with its own code (migrations, BENCH_SUBSCRIBERS subscribers — default
 * 10,000 — and a campaign to send now; BENCH_DKIM=rsa|ed25519|both signs every message); each round copies it
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
import {
  type PreparedSend,
  parseSendDkim,
  prepareSendDatabaseApart,
  runSender,
  type SendDkim,
  type SenderRun,
} from "./send-lib";

const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 10_000);
const DKIM = parseSendDkim(process.env.BENCH_DKIM);

/** One sender to run: a checkout and how its tenant signs. */
export interface SenderSide {
  name: string;
  root: string;
  dkim: SendDkim;
}

interface Side extends SenderSide {
  /** the prepared database, copied for each round */
  template: string;
  prepared: PreparedSend;
  runs: SenderRun[];
}

/** The medians of a side's rounds, and each round's figures. */
export interface SideSummary {
  side: string;
  dkim: string;
  messagesPerSecond: number;
  steadyMessagesPerSecond: number;
  senderCpuMsPerMessage: number;
  steadyCpuMsPerMessage: number;
  steadyMainThreadCpuMsPerMessage: number;
  steadySinkCpuMsPerMessage: number;
  peakRssMb: number;
  /** DKIM-Signature fields a message (median of rounds) */
  signaturesPerMessage: number;
  rounds: {
    messagesPerSecond: number;
    steadyMessagesPerSecond: number;
    senderCpuMsPerMessage: number;
    steadyCpuMsPerMessage: number;
  }[];
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

/**
 * Runs the sides' senders in turns, `rounds` times, the order rotating each round so that each
 * sees the machine's same minutes; each prepared once (its own code) and copied for every round.
 */
export async function senderRounds(
  given: SenderSide[],
  rounds: number,
  subscribers: number,
): Promise<SideSummary[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "herald-bench-send-compare-"));
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean);
  try {
    const sides: Side[] = [];
    for (const [index, side] of given.entries()) {
      ensureBuild(side.root);
      const template = path.join(dir, `side-${index}.db`);
      console.log(`${side.name}: seeding ${subscribers.toLocaleString("en")} subscribers …`);
      const prepared = await prepareSendDatabaseApart(
        side.root,
        `file:${template}`,
        subscribers,
        side.dkim,
      );
      sides.push({ ...side, template, prepared, runs: [] });
    }
    for (let round = 0; round < rounds; round++) {
      const shift = round % sides.length;
      for (const side of [...sides.slice(shift), ...sides.slice(0, shift)]) {
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
          if (run.received !== subscribers || run.sent !== subscribers) {
            throw new Error(`${side.name}: ${run.received} received, ${run.sent} marked sent`);
          }
          if (run.signed !== (side.dkim ? run.received : 0)) {
            throw new Error(`${side.name}: ${run.signed} of ${run.received} messages signed`);
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
    return sides.map((side) => ({
      side: side.name,
      dkim: side.dkim ?? "off",
      messagesPerSecond: Math.round(median(side.runs.map((run) => run.messagesPerSecond))),
      steadyMessagesPerSecond: Math.round(
        median(side.runs.map((run) => run.steadyMessagesPerSecond)),
      ),
      senderCpuMsPerMessage: round(median(side.runs.map((run) => run.senderCpuMsPerMessage)), 3),
      steadyCpuMsPerMessage: round(median(side.runs.map((run) => run.steadyCpuMsPerMessage)), 3),
      steadyMainThreadCpuMsPerMessage: round(
        median(side.runs.map((run) => run.steadyMainThreadCpuMsPerMessage)),
        3,
      ),
      steadySinkCpuMsPerMessage: round(
        median(side.runs.map((run) => run.steadySinkCpuMsPerMessage)),
        3,
      ),
      peakRssMb: round(median(side.runs.map((run) => run.rss.peakMb ?? Number.NaN)), 1),
      signaturesPerMessage: round(median(side.runs.map((run) => run.signatures / run.received)), 2),
      rounds: side.runs.map((run) => ({
        messagesPerSecond: Math.round(run.messagesPerSecond),
        steadyMessagesPerSecond: Math.round(run.steadyMessagesPerSecond),
        senderCpuMsPerMessage: round(run.senderCpuMsPerMessage, 3),
        steadyCpuMsPerMessage: round(run.steadyCpuMsPerMessage, 3),
      })),
    }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const loadAverage = () =>
  os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(" ");

export async function compareSenders(before: string, after: string, rounds: number): Promise<void> {
  const summary = await senderRounds(
    [
      { name: `before (${before})`, root: path.resolve(before), dkim: DKIM },
      { name: `after (${after})`, root: path.resolve(after), dkim: DKIM },
    ],
    rounds,
    SUBSCRIBERS,
  );
  console.log(
    `\nSQLite, ${SUBSCRIBERS.toLocaleString("en")} recipients, DKIM ${DKIM ?? "off"}, ${rounds} rounds, medians (load average ${loadAverage()}):\n`,
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
}
