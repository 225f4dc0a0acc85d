/**
 * What DKIM signing costs the sender (issue 36, target 6: ≤ 15% of the throughput): the same
 * campaign sent unsigned, signed with RSA-2048 only, and signed both ways (RSA-2048 and Ed25519,
 * two signatures on every message), in turns over several rounds (bench/compare-send.ts) so that
 * each sees the shared machine's same minutes. Run by `npm run bench:send` after its main table,
 * or alone with `npm run bench:send -- --dkim-cost [rounds]`. BENCH_DKIM_COST_SUBSCRIBERS
 * recipients (default 10,000). Writes bench/results/send-dkim.json.
 */
import os from "node:os";
import { loadAverage, senderRounds } from "./compare-send";
import { formatTable, machineInfo, repoRoot, round, writeResults } from "./lib";

const SUBSCRIBERS = Number(process.env.BENCH_DKIM_COST_SUBSCRIBERS ?? 10_000);
export const DKIM_COST_TARGET = "target: signing both ways costs ≤ 15% of the unsigned throughput";

const percent = (value: number) => `${value >= 0 ? "+" : ""}${round(value * 100, 1)}%`;

export async function dkimCost(rounds: number): Promise<void> {
  const summary = await senderRounds(
    [
      { name: "none", root: repoRoot, dkim: null },
      { name: "RSA only", root: repoRoot, dkim: "rsa" },
      { name: "both", root: repoRoot, dkim: "both" },
    ],
    rounds,
    SUBSCRIBERS,
  );
  const [none] = summary;
  if (!none) return;
  const rows = summary.map((side) => ({
    ...side,
    throughputCost: 1 - side.steadyMessagesPerSecond / none.steadyMessagesPerSecond,
    cpuAdded: side.steadyCpuMsPerMessage - none.steadyCpuMsPerMessage,
  }));
  console.log(
    `\nDKIM cost: SQLite, ${SUBSCRIBERS.toLocaleString("en")} recipients, ${rounds} rounds in turns, medians (${os.cpus().length} cores, load average ${loadAverage()})\n${DKIM_COST_TARGET}\n`,
  );
  console.log(
    formatTable(
      [
        "DKIM",
        "signatures/msg",
        "msg/s",
        "steady msg/s",
        "throughput cost",
        "sending CPU ms/msg",
        "CPU added ms/msg",
        "CPU cost",
        "sender's thread ms/msg",
        "sink CPU ms/msg",
        "steady msg/s each round",
      ],
      rows.map((row) => [
        row.side,
        String(row.signaturesPerMessage),
        String(row.messagesPerSecond),
        String(row.steadyMessagesPerSecond),
        row === rows[0] ? "—" : percent(row.throughputCost),
        String(row.steadyCpuMsPerMessage),
        row === rows[0] ? "—" : String(round(row.cpuAdded, 3)),
        row === rows[0] ? "—" : percent(row.cpuAdded / none.steadyCpuMsPerMessage),
        String(row.steadyMainThreadCpuMsPerMessage),
        String(row.steadySinkCpuMsPerMessage),
        row.rounds.map((each) => each.steadyMessagesPerSecond).join(", "),
      ]),
      ["left", ...Array<"right">(9).fill("right"), "left"],
    ),
  );
  const file = await writeResults("send-dkim.json", {
    date: new Date().toISOString(),
    machine: machineInfo(),
    loadAverage: os.loadavg(),
    subscribers: SUBSCRIBERS,
    target: DKIM_COST_TARGET,
    results: rows,
  });
  console.log(`\nwritten to ${file}`);
}
