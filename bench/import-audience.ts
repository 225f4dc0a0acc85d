/**
 * Audience import benchmark (issue 33, target 3): `npm run bench:import:audience`.
 *
 * Writes a Ghost members CSV of BENCH_IMPORT_MEMBERS (default 50,000) members in Ghost's export
 * shape — a tenth not subscribed to emails, labels from a handful (some holding quotes), names
 * with HTML entities, a few duplicates in another case and bad addresses — and imports it into
 * a fresh tenant through the import job's own functions (upload check, then the worker's run), on
 * a fresh SQLite file and, when BENCH_DATABASE_URL (or TEST_DATABASE_URL) names a PostgreSQL
 * server, on a fresh PostgreSQL database. Reports the time from upload to done. Target, together
 * with the archive half's 500 posts: ≤ 60 s. Writes bench/results/import-audience.json.
 */
import type { Db } from "../server/db";
import { runImport } from "../server/subscribers/import-run";
import { decodeSourceUpload } from "../server/subscribers/import-sources";
import { claimImport, getImport, queueImport } from "../server/subscribers/imports";
import { getTenant } from "../server/tenants/store";
import { createTestDatabase, type TestDatabase } from "../tests/support/database";
import {
  benchDialects,
  formatTable,
  machineInfo,
  round,
  setUpBenchTenant,
  timed,
  writeResults,
} from "./lib";

const MEMBERS = Number(process.env.BENCH_IMPORT_MEMBERS ?? 50_000);
const LABELS = ["VIP", "Early bird", "Webinar 2023", 'Quotes "R" Us', "Paid readers"];

/** A Ghost members export of `n` rows (and its count of rows a correct import refuses). */
export function ghostMembersCsv(n: number): { csv: string; refused: number } {
  const lines = [
    "id,email,name,note,subscribed_to_emails,complimentary_plan,stripe_customer_id,created_at,deleted_at,labels,tiers",
  ];
  let refused = 0;
  const quote = (text: string) => `"${text.replace(/"/g, '""')}"`;
  for (let i = 1; i <= n; i++) {
    const id = (0x6401a1c2e4b0 + i).toString(16).padStart(24, "0");
    let email = `member${i}@example.com`;
    if (i % 997 === 0) {
      // an earlier row's address again, in capitals
      email = `MEMBER${(i - 1) % 1_999 === 0 ? i - 2 : i - 1}@Example.com`;
      refused++;
    } else if (i % 1_999 === 0) {
      email = `member${i}@@example.com`;
      refused++;
    }
    const name = i % 50 === 0 ? `Reader ${i} &amp; Co` : i % 7 === 0 ? "" : `Reader ${i}`;
    const subscribed = i % 10 !== 0;
    const labels = [LABELS[i % 5], i % 3 === 0 ? LABELS[(i + 2) % 5] : null]
      .filter(Boolean)
      .join(", ");
    const created = new Date(Date.UTC(2019, 0, 1) + i * 60_000).toISOString();
    const note = i % 100 === 0 ? quote(`Met at event ${i}, "front row"`) : "";
    lines.push(
      [
        id,
        email,
        name.includes(",") ? quote(name) : name,
        note,
        subscribed,
        "false",
        i % 40 === 0 ? `cus_${i}` : "",
        created,
        "",
        labels ? quote(labels) : "",
        i % 40 === 0 ? "Gold" : "",
      ].join(","),
    );
  }
  return { csv: `${lines.join("\n")}\n`, refused };
}

interface Run {
  dialect: string;
  members: number;
  written: number;
  refused: number;
  checkMs: number;
  writeMs: number;
  totalMs: number;
}

async function runOn(database: TestDatabase, csv: string): Promise<Run> {
  const db: Db = database.db;
  await setUpBenchTenant(db);
  const scope = { db, tenant: (await getTenant(db, "bench")).config };
  const [id, checkMs] = await timed(() => {
    const text = decodeSourceUpload("ghost", new TextEncoder().encode(csv));
    return queueImport(scope, "bench", "members.csv", text, "ghost");
  });
  const [, writeMs] = await timed(async () => {
    const job = await claimImport(db, "bench-worker", new Date(), { id, tenantId: "bench" });
    if (!job) throw new Error("the job was not claimed");
    await runImport(db, job, "bench-worker");
  });
  const result = await getImport(scope, id);
  if (result.status !== "done") throw new Error(`import ${result.status}: ${result.error}`);
  return {
    dialect: database.dialect,
    members: MEMBERS,
    written: result.doneRows,
    refused: result.refusedCount,
    checkMs: round(checkMs, 0),
    writeMs: round(writeMs, 0),
    totalMs: round(checkMs + writeMs, 0),
  };
}

async function main(): Promise<void> {
  const { csv, refused } = ghostMembersCsv(MEMBERS);
  console.log(
    `Ghost members CSV: ${MEMBERS.toLocaleString("en")} rows, ${(csv.length / 1e6).toFixed(1)} MB, ${refused} to refuse`,
  );
  const runs: Run[] = [];
  for (const dialect of benchDialects()) {
    const database = await createTestDatabase(dialect);
    try {
      const run = await runOn(database, csv);
      if (run.refused !== refused) {
        throw new Error(`expected ${refused} refused rows, the import refused ${run.refused}`);
      }
      runs.push(run);
    } finally {
      await database.drop();
    }
  }
  console.log("");
  console.log(
    formatTable(
      ["database", "members", "written", "refused", "check s", "write s", "total s"],
      runs.map((run) => [
        run.dialect,
        run.members.toLocaleString("en"),
        run.written.toLocaleString("en"),
        String(run.refused),
        (run.checkMs / 1000).toFixed(1),
        (run.writeMs / 1000).toFixed(1),
        (run.totalMs / 1000).toFixed(1),
      ]),
      ["left", "right", "right", "right", "right", "right", "right"],
    ),
  );
  const file = await writeResults("import-audience.json", {
    date: new Date().toISOString(),
    machine: machineInfo(),
    runs,
  });
  console.log(`Wrote ${file}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
