/**
 * Audience benchmark (issue 16): `npm run bench:audience`.
 *
 * Seeds BENCH_AUDIENCE_SUBSCRIBERS (default 1,000,000) subscribers into one tenant on a fresh
 * SQLite file and, when BENCH_DATABASE_URL (or TEST_DATABASE_URL) names a PostgreSQL server, on a
 * fresh PostgreSQL database — statuses mixed, everyone on a list, a third on a second one, custom
 * field values on a quarter — then times the functions the staff pages call, one call at a time:
 * the filtered subscriber list (a page and its count) and segment counts. Target: p99 ≤ 100 ms on
 * both databases. Then a 100,000-row CSV import into that tenant, through the import worker's own
 * functions (target ≤ 30 s). Writes bench/results/audience.json.
 */
import { sql } from "kysely";
import type { Db } from "../server/db";
import { crossTenant } from "../server/db/tenant-guard";
import { foldAudienceCounts } from "../server/subscribers/counts";
import { runImport } from "../server/subscribers/import-run";
import {
  claimImport,
  getImport,
  IMPORT_CHUNK_ROWS,
  queueImport,
} from "../server/subscribers/imports";
import { listTenantLists } from "../server/subscribers/lists";
import { listSubscribers, type SubscriberFilter } from "../server/subscribers/search";
import { countSegment } from "../server/subscribers/segment-counts";
import { getTenant } from "../server/tenants/store";
import type { SegmentRule } from "../shared/schemas/segment";
import { createTestDatabase, type TestDatabase } from "../tests/support/database";
import {
  benchDialects,
  formatTable,
  machineInfo,
  round,
  seriesOf,
  setUpBenchTenant,
  writeResults,
} from "./lib";

const SUBSCRIBERS = Number(process.env.BENCH_AUDIENCE_SUBSCRIBERS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_AUDIENCE_RUNS ?? 30);
const WARMUP = 3;
const TARGET_P99_MS = 100;

async function seed(database: TestDatabase): Promise<void> {
  const db: Db = database.db;
  // Bulk seeding in raw SQL: the tenant guard refuses raw SQL on tenant tables.
  const raw = crossTenant(db);
  await setUpBenchTenant(db);
  const now = new Date().toISOString();
  const tenant = (await getTenant(db, "bench")).config;
  const lists = await listTenantLists(db, tenant);
  const list = (key: string) => lists.find((each) => each.key === key)?.id ?? 0;
  const started = Date.now();
  const day = (i: unknown) =>
    database.dialect === "postgres"
      ? sql`to_char(timestamp '2024-01-01' + ((${i}) % 700) * interval '1 day', 'YYYY-MM-DD"T"HH24:MI:SS.000"Z"')`
      : sql`strftime('%Y-%m-%dT%H:%M:%S.000Z', '2024-01-01', '+' || ((${i}) % 700) || ' days')`;
  // Raw SQL: a million rows through the ORM one by one would take the whole benchmark's time.
  await sql`
    INSERT INTO subscribers (tenant_id, email, name, status, subscribed_at, unsubscribed_at, created_at, updated_at)
    SELECT 'bench', 'person' || i || '@example.com',
      CASE WHEN i % 5 = 0 THEN 'Ann Person ' || i ELSE '' END,
      CASE WHEN i % 10 < 7 THEN 'active' WHEN i % 10 = 7 THEN 'unsubscribed'
           WHEN i % 10 = 8 THEN 'unconfirmed' ELSE 'bounced' END,
      ${day(sql.ref("i"))}, NULL, ${day(sql.ref("i"))}, ${now}
    FROM ${seriesOf(database.dialect, SUBSCRIBERS)}`.execute(raw);
  await sql`
    INSERT INTO subscriptions (tenant_id, subscriber_id, list_id, created_at)
    SELECT 'bench', id, ${list("newsletter")}, created_at FROM subscribers WHERE tenant_id = 'bench'`.execute(
    raw,
  );
  await sql`
    INSERT INTO subscriptions (tenant_id, subscriber_id, list_id, created_at)
    SELECT 'bench', id, ${list("industry-news")}, created_at FROM subscribers
    WHERE tenant_id = 'bench' AND id % 3 = 0`.execute(raw);
  for (const [key, label, type] of [
    ["region", "Region", "choice"],
    ["company_size", "Company size", "number"],
  ] as const) {
    await db
      .insertInto("subscriber_fields")
      .values({
        tenant_id: "bench",
        key,
        label,
        type,
        choices: type === "choice" ? '["EMEA","Americas","APAC"]' : "[]",
        position: key === "region" ? 0 : 1,
        created_at: now,
      })
      .execute();
  }
  await sql`
    INSERT INTO subscriber_values (tenant_id, subscriber_id, field_key, value)
    SELECT 'bench', id, 'region', CASE WHEN id % 3 = 0 THEN 'EMEA' WHEN id % 3 = 1 THEN 'Americas' ELSE 'APAC' END
    FROM subscribers WHERE tenant_id = 'bench' AND id % 4 = 0`.execute(raw);
  await sql`
    INSERT INTO subscriber_values (tenant_id, subscriber_id, field_key, value)
    SELECT 'bench', id, 'company_size', CAST(id % 5000 AS TEXT)
    FROM subscribers WHERE tenant_id = 'bench' AND id % 4 = 1`.execute(raw);
  // The triggers wrote a +1 row per subscriber and membership; the app folds them as it reads.
  await foldAudienceCounts(db, "bench");
  await sql.raw(database.dialect === "postgres" ? "VACUUM ANALYZE" : "ANALYZE").execute(db);
  console.log(
    `  seeded ${SUBSCRIBERS.toLocaleString("en-US")} subscribers in ${round((Date.now() - started) / 1000, 1)} s`,
  );
}

const LIST_QUERIES: { kind: string; filter: SubscriberFilter }[] = [
  { kind: "subscribers: everyone, first page", filter: {} },
  { kind: "subscribers: status active", filter: { status: "active" } },
  { kind: "subscribers: on a list", filter: { list: "industry-news" } },
  {
    kind: "subscribers: list and status",
    filter: { list: "industry-news", status: "unsubscribed" },
  },
  { kind: "subscribers: search “person12345”", filter: { q: "person12345" } },
  { kind: "subscribers: search “ann”", filter: { q: "ann" } },
];

const SEGMENTS: { kind: string; rule: SegmentRule }[] = [
  {
    kind: "segment: list + active",
    rule: { lists: ["industry-news"], statuses: ["active"], fields: [] },
  },
  {
    kind: "segment: region is EMEA",
    rule: { lists: [], statuses: [], fields: [{ key: "region", op: "is", value: "EMEA" }] },
  },
  {
    kind: "segment: region is not EMEA",
    rule: { lists: [], statuses: [], fields: [{ key: "region", op: "is-not", value: "EMEA" }] },
  },
  {
    kind: "segment: company size > 4000",
    rule: {
      lists: [],
      statuses: [],
      fields: [{ key: "company_size", op: "greater", value: "4000" }],
    },
  },
  {
    kind: "segment: joined in 2025",
    rule: {
      lists: [],
      statuses: [],
      fields: [],
      signedUpAfter: "2025-01-01",
      signedUpBefore: "2025-12-31",
    },
  },
  {
    kind: "segment: list + region EMEA + active",
    rule: {
      lists: ["industry-news"],
      statuses: ["active"],
      fields: [{ key: "region", op: "is", value: "EMEA" }],
    },
  },
];

const IMPORT_ROWS = Number(process.env.BENCH_AUDIENCE_IMPORT_ROWS ?? 100_000);
const TARGET_IMPORT_S = 30;

interface ImportResult {
  database: string;
  rows: number;
  seconds: number;
  created: number;
  updated: number;
  refused: number;
  /** progress the page could show: one update per chunk written */
  progressUpdates: number;
}

/**
 * A CSV of IMPORT_ROWS rows into the seeded tenant, as staff upload it: checked and queued
 * (queueImport), then written by the import worker's own functions (claimImport, runImport). A
 * tenth are people already there (updated), a twentieth say unsubscribed, a third name two lists,
 * and one in a thousand is refused (a bad address).
 */
async function measureImport(database: TestDatabase): Promise<ImportResult> {
  const tenant = (await getTenant(database.db, "bench")).config;
  const ctx = { db: database.db, tenant };
  const lines = ["email,name,lists,status"];
  for (let i = 1; i <= IMPORT_ROWS; i++) {
    const email =
      i % 1000 === 0
        ? `not-an-address-${i}`
        : i % 10 === 0
          ? `person${(i * 7) % SUBSCRIBERS || 1}@example.com`
          : `imported${i}@example.org`;
    const lists = i % 3 === 0 ? "newsletter;industry-news" : "";
    const status = i % 20 === 1 ? "unsubscribed" : "";
    lines.push(`${email},Imported Person ${i},${lists},${status}`);
  }
  const text = `${lines.join("\r\n")}\r\n`;
  const started = process.hrtime.bigint();
  const id = await queueImport(ctx, "bench@example.com", "bench.csv", text);
  const job = await claimImport(database.db, "bench-worker");
  if (!job || job.id !== id) throw new Error("the queued import was not claimed");
  await runImport(database.db, job, "bench-worker");
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const done = await getImport(ctx, id);
  if (done.status !== "done" || done.doneRows !== done.totalRows) {
    throw new Error(`import ended ${done.status}: ${done.doneRows} of ${done.totalRows}`);
  }
  return {
    database: database.dialect,
    rows: IMPORT_ROWS,
    seconds: round(seconds, 1),
    created: done.created,
    updated: done.updated,
    refused: done.refusedCount,
    progressUpdates: Math.ceil(done.totalRows / IMPORT_CHUNK_ROWS),
  };
}

interface Row {
  database: string;
  kind: string;
  result: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

async function time(
  database: TestDatabase,
  kind: string,
  call: () => Promise<number>,
): Promise<Row> {
  for (let i = 0; i < WARMUP; i++) await call();
  const times: number[] = [];
  let result = 0;
  for (let i = 0; i < RUNS; i++) {
    const start = process.hrtime.bigint();
    result = await call();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  return {
    database: database.dialect,
    kind,
    result,
    p50: round(percentile(times, 50), 1),
    p95: round(percentile(times, 95), 1),
    p99: round(percentile(times, 99), 1),
    max: round(times.at(-1) ?? 0, 1),
  };
}

async function measure(database: TestDatabase): Promise<Row[]> {
  const tenant = (await getTenant(database.db, "bench")).config;
  const ctx = { db: database.db, tenant };
  const rows: Row[] = [];
  for (const { kind, filter } of LIST_QUERIES) {
    rows.push(
      await time(database, kind, async () => (await listSubscribers(ctx, filter, 1)).total),
    );
  }
  for (const { kind, rule } of SEGMENTS) {
    rows.push(
      await time(
        database,
        kind,
        async () => (await countSegment(database.db, "bench", rule)).matching,
      ),
    );
  }
  return rows;
}

async function main(): Promise<void> {
  const dialects = benchDialects(process.env.BENCH_AUDIENCE_ONLY);
  const rows: Row[] = [];
  const imports: ImportResult[] = [];
  for (const dialect of dialects) {
    console.log(`${dialect}: seeding …`);
    const database = await createTestDatabase(dialect);
    try {
      await seed(database);
      console.log(`${dialect}: ${LIST_QUERIES.length + SEGMENTS.length} queries × ${RUNS} runs …`);
      rows.push(...(await measure(database)));
      console.log(`${dialect}: importing a ${IMPORT_ROWS.toLocaleString("en-US")}-row CSV …`);
      imports.push(await measureImport(database));
    } finally {
      await database.drop();
    }
  }
  console.log("");
  console.log(
    `Herald audience benchmark: ${SUBSCRIBERS.toLocaleString("en-US")} subscribers in one tenant, ${RUNS} calls per query, one at a time`,
  );
  console.log("");
  console.log(
    formatTable(
      ["database", "query", "result", "p50 ms", "p95 ms", "p99 ms", "max ms"],
      rows.map((row) => [
        row.database,
        row.kind,
        row.result.toLocaleString("en-US"),
        String(row.p50),
        String(row.p95),
        String(row.p99),
        String(row.max),
      ]),
      ["left", "left", "right", "right", "right", "right", "right"],
    ),
  );
  console.log("");
  console.log(
    formatTable(
      ["database", "CSV rows", "seconds", "new", "updated", "refused", "progress updates"],
      imports.map((each) => [
        each.database,
        each.rows.toLocaleString("en-US"),
        String(each.seconds),
        each.created.toLocaleString("en-US"),
        each.updated.toLocaleString("en-US"),
        each.refused.toLocaleString("en-US"),
        String(each.progressUpdates),
      ]),
      ["left", "right", "right", "right", "right", "right", "right"],
    ),
  );
  const worst = Math.max(...rows.map((row) => row.p99));
  const slowestImport = Math.max(...imports.map((each) => each.seconds));
  const full = SUBSCRIBERS >= 1_000_000 && IMPORT_ROWS >= 100_000;
  const both = dialects.length === 2;
  const queriesMet = worst <= TARGET_P99_MS && both && full;
  const importMet = slowestImport <= TARGET_IMPORT_S && both && full;
  const verdict = (met: boolean) =>
    full ? (met ? " (met)" : " (NOT met)") : " (a smaller run: not a measure of the target)";
  console.log("");
  console.log(
    `target: p99 ≤ ${TARGET_P99_MS} ms on both databases with 1,000,000 subscribers: worst p99 ${worst} ms${verdict(queriesMet)}`,
  );
  console.log(
    `target: a 100,000-row CSV import in ≤ ${TARGET_IMPORT_S} s on both databases: slowest ${slowestImport} s${verdict(importMet)}`,
  );
  const file = await writeResults("audience.json", {
    date: new Date().toISOString(),
    machine: machineInfo(),
    subscribers: SUBSCRIBERS,
    runs: RUNS,
    targetP99Ms: TARGET_P99_MS,
    targetImportSeconds: TARGET_IMPORT_S,
    met: queriesMet && importMet,
    rows,
    imports,
  });
  console.log(`Wrote ${file}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
