/**
 * The campaign report's recipient list (issue 35, target 4): `npm run bench:recipients`.
 *
 * Seeds a sent campaign of BENCH_RECIPIENTS (default 100,000) deliveries into one tenant on a
 * fresh SQLite file and, when BENCH_DATABASE_URL (or TEST_DATABASE_URL) names a PostgreSQL
 * server, on PostgreSQL — 30% opened, 5% clicked (with their open), 1% bounced, 0.2%
 * unsubscribed — then times what the report page calls on each load (the filters' counts, a
 * page), a search, the page deep in a filter, the CSV and the resend's audience count. Writes
 * bench/results/recipient-activity.json.
 */
import { sql } from "kysely";
import {
  activityCounts,
  recipientActivityCsv,
  recipientActivityPage,
} from "../server/campaigns/recipient-activity";
import { countRecipients } from "../server/campaigns/recipients";
import { crossTenant, tenantDb } from "../server/db/tenant-guard";
import { listTenantLists } from "../server/subscribers/lists";
import { getTenant } from "../server/tenants/store";
import { createTestDatabase, type TestDatabase } from "../tests/support/database";
import {
  benchDialects,
  formatTable,
  machineInfo,
  round,
  seriesOf,
  setUpBenchTenant,
  timed,
  writeResults,
} from "./lib";

const RECIPIENTS = Number(process.env.BENCH_RECIPIENTS ?? 100_000);
const RUNS = Number(process.env.BENCH_RECIPIENTS_RUNS ?? 20);
const CAMPAIGN = "bench-campaign";

async function seed(database: TestDatabase): Promise<number> {
  await setUpBenchTenant(database.db);
  // Raw SQL, unguarded: a hundred thousand rows one by one would take the benchmark's time.
  const raw = crossTenant(database.db);
  const tenant = (await getTenant(database.db, "bench")).config;
  const list = (await listTenantLists(database.db, tenant)).find((l) => l.key === "newsletter");
  const now = "2026-11-01T10:00:00.000Z";
  await sql`INSERT INTO subscribers (tenant_id, email, name, status, subscribed_at, unsubscribed_at, created_at, updated_at)
    SELECT 'bench', 'reader' || i || '@example.com', '',
      CASE WHEN i % 500 = 0 THEN 'unsubscribed' WHEN i % 100 = 1 THEN 'bounced' ELSE 'active' END,
      ${now}, NULL, ${now}, ${now}
    FROM ${seriesOf(database.dialect, RECIPIENTS)}`.execute(raw);
  await sql`INSERT INTO subscriptions (tenant_id, subscriber_id, list_id, created_at)
    SELECT 'bench', id, ${list?.id ?? 0}, ${now} FROM subscribers WHERE tenant_id = 'bench'`.execute(
    raw,
  );
  await sql`INSERT INTO campaigns (id, tenant_id, newsletter_id, name, subject, from_name, from_email,
      content, list_ids, track_opens, track_clicks, status, scheduled_at, started_at, finished_at,
      created_by, created_at, updated_at)
    VALUES (${CAMPAIGN}, 'bench', NULL, 'Bench', 'Bench', 'Bench', 'bench@example.com', '<p>x</p>',
      ${JSON.stringify([list?.id ?? 0])}, 1, 1, 'sent', ${now}, ${now}, ${now}, NULL, ${now}, ${now})`.execute(
    raw,
  );
  await sql`INSERT INTO deliveries (tenant_id, campaign_id, subscriber_id, email, status, attempts,
      next_attempt_at, sent_at, bounced_at)
    SELECT 'bench', ${CAMPAIGN}, id, email, CASE WHEN id % 100 = 1 THEN 'failed' ELSE 'sent' END, 1,
      ${now}, ${now}, CASE WHEN id % 100 = 1 THEN ${now} ELSE NULL END
    FROM subscribers WHERE tenant_id = 'bench'`.execute(raw);
  const events = (kind: string, where: string, url: string | null) =>
    sql`INSERT INTO campaign_events (tenant_id, campaign_id, delivery_id, kind, url, created_at, machine)
      SELECT 'bench', ${CAMPAIGN}, id, ${kind}, ${url}, ${now}, 0 FROM deliveries
      WHERE campaign_id = ${CAMPAIGN} AND ${sql.raw(where)}`.execute(raw);
  await events("open", "id % 10 < 3 OR id % 20 = 5", null);
  await events("click", "id % 20 = 5", "https://example.com/guide");
  await events("unsubscribe", "id % 500 = 0", null);
  await sql.raw(database.dialect === "postgres" ? "VACUUM ANALYZE" : "ANALYZE").execute(raw);
  const { middle } = await raw
    .selectFrom("deliveries")
    .select((eb) => eb.fn.max("id").as("middle"))
    .where("id", "<=", sql<number>`(select min(id) + ${RECIPIENTS / 2} from deliveries)`)
    .executeTakeFirstOrThrow();
  return Number(middle);
}

interface Row {
  database: string;
  kind: string;
  p50: number;
  p99: number;
}

async function measure(database: TestDatabase, middle: number): Promise<Row[]> {
  const db = tenantDb(database.db, "bench");
  const tenant = (await getTenant(database.db, "bench")).config;
  const list = (await listTenantLists(database.db, tenant)).find((l) => l.key === "newsletter");
  const audience = {
    listIds: [list?.id ?? 0],
    segments: [],
    numberFields: new Set<string>(),
    unopenedOf: CAMPAIGN,
  };
  const cases: [string, () => Promise<unknown>, number][] = [
    ["the filters' counts (every load)", () => activityCounts(db, CAMPAIGN), RUNS],
    [
      "first page, everyone",
      () => recipientActivityPage(db, CAMPAIGN, { filter: "all", q: "" }),
      RUNS,
    ],
    [
      "a page halfway, did not open",
      () => recipientActivityPage(db, CAMPAIGN, { filter: "not-opened", q: "", after: middle }),
      RUNS,
    ],
    [
      "search 'reader4242', clicked",
      () => recipientActivityPage(db, CAMPAIGN, { filter: "clicked", q: "reader4242" }),
      RUNS,
    ],
    ["the resend's audience counted", () => countRecipients(db, "bench", audience), RUNS],
    ["CSV of everyone", () => recipientActivityCsv(db, CAMPAIGN, { filter: "all", q: "" }), 3],
  ];
  const rows: Row[] = [];
  for (const [kind, work, runs] of cases) {
    await work();
    const times: number[] = [];
    for (let run = 0; run < runs; run++) times.push((await timed(work))[1]);
    times.sort((a, b) => a - b);
    const at = (p: number) =>
      times[Math.min(times.length - 1, Math.ceil(p * times.length) - 1)] ?? 0;
    rows.push({
      database: database.dialect,
      kind,
      p50: round(at(0.5), 1),
      p99: round(at(0.99), 1),
    });
  }
  return rows;
}

const rows: Row[] = [];
for (const dialect of benchDialects(process.env.BENCH_RECIPIENTS_ONLY)) {
  const database = await createTestDatabase(dialect);
  try {
    console.log(`${dialect}: seeding ${RECIPIENTS.toLocaleString("en-US")} recipients…`);
    rows.push(...(await measure(database, await seed(database))));
  } finally {
    await database.drop();
  }
}
console.log(
  formatTable(
    ["database", "call", "p50 ms", "p99 ms"],
    rows.map((row) => [row.database, row.kind, String(row.p50), String(row.p99)]),
    ["left", "left", "right", "right"],
  ),
);
const file = await writeResults("recipient-activity.json", {
  machine: machineInfo(),
  recipients: RECIPIENTS,
  runs: RUNS,
  rows,
});
console.log(`written to ${file}`);
