/**
 * Tenant move benchmark (issue 33, target 2): `npx tsx bench/tenant-move.ts`.
 *
 * Seeds BENCH_MOVE_SUBSCRIBERS (default 50,000) subscribers into one tenant on a fresh SQLite file
 * — everyone on a list, a third on a second one, a custom field value and a timeline event each —
 * then times `exportTenant`, `importTenant` into PostgreSQL (BENCH_DATABASE_URL or
 * TEST_DATABASE_URL; else a second SQLite file) and back into the SQLite file under another id.
 * Measured, not a target: the figures go in the README. Writes bench/results/tenant-move.json.
 */
import { sql } from "kysely";
import { migrateToLatest } from "../server/db/migrate";
import { crossTenant } from "../server/db/tenant-guard";
import { listTenantLists } from "../server/subscribers/lists";
import { exportTenant } from "../server/tenants/move/export";
import { importTenant } from "../server/tenants/move/import";
import { seedTenants } from "../server/tenants/seed";
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

const SUBSCRIBERS = Number(process.env.BENCH_MOVE_SUBSCRIBERS ?? 50_000);

async function seed(database: TestDatabase): Promise<number> {
  const db = database.db;
  // Bulk seeding in raw SQL: the tenant guard refuses raw SQL on tenant tables.
  const raw = crossTenant(db);
  await setUpBenchTenant(db, { domain: "bench.example" });
  await seedTenants(db);
  const now = new Date().toISOString();
  const lists = await listTenantLists(db, (await getTenant(db, "bench")).config);
  const list = (key: string) => lists.find((each) => each.key === key)?.id ?? 0;
  // Raw SQL: tens of thousands of rows one by one would take the benchmark's time.
  await sql`
    INSERT INTO subscribers (tenant_id, email, name, status, subscribed_at, unsubscribed_at, created_at, updated_at)
    SELECT 'bench', 'person' || i || '@example.com', 'Person ' || i,
      CASE WHEN i % 10 < 8 THEN 'active' ELSE 'unsubscribed' END, ${now}, NULL, ${now}, ${now}
    FROM ${seriesOf(database.dialect, SUBSCRIBERS)}`.execute(raw);
  await sql`INSERT INTO subscriptions (tenant_id, subscriber_id, list_id, created_at)
    SELECT 'bench', id, ${list("newsletter")}, created_at FROM subscribers WHERE tenant_id = 'bench'`.execute(
    raw,
  );
  await sql`INSERT INTO subscriptions (tenant_id, subscriber_id, list_id, created_at)
    SELECT 'bench', id, ${list("industry-news")}, created_at FROM subscribers
    WHERE tenant_id = 'bench' AND id % 3 = 0`.execute(raw);
  await db
    .insertInto("subscriber_fields")
    .values({
      tenant_id: "bench",
      key: "region",
      label: "Region",
      type: "text",
      choices: "[]",
      position: 0,
      created_at: now,
    })
    .execute();
  await sql`INSERT INTO subscriber_values (tenant_id, subscriber_id, field_key, value)
    SELECT 'bench', id, 'region', 'EMEA' FROM subscribers WHERE tenant_id = 'bench'`.execute(raw);
  await sql`INSERT INTO subscriber_events (tenant_id, subscriber_id, kind, detail, created_at)
    SELECT 'bench', id, 'signed-up', '{"source":"import","lists":["newsletter"]}', created_at
    FROM subscribers WHERE tenant_id = 'bench'`.execute(raw);
  const { n } = await db
    .selectFrom("audience_counts")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("tenant_id", "=", "bench")
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** What `work` returns, and how many seconds it took. */
async function inSeconds<T>(work: () => Promise<T>): Promise<[T, number]> {
  const [result, ms] = await timed(work);
  return [result, round(ms / 1000, 2)];
}

const source = await createTestDatabase("sqlite");
// PostgreSQL when one is named, else a second SQLite file.
const destination = await createTestDatabase(benchDialects().at(-1) ?? "sqlite");
try {
  console.log(`Seeding ${SUBSCRIBERS.toLocaleString("en-US")} subscribers on SQLite…`);
  await seed(source);
  await migrateToLatest(destination.db);
  await seedTenants(destination.db);
  const [exported, exportSeconds] = await inSeconds(() => exportTenant(source.db, "bench"));
  const rows = Object.values(exported.tables).reduce((sum, n) => sum + n, 0);
  const [, importSeconds] = await inSeconds(() => importTenant(destination.db, exported.archive));
  const [back, backExport] = await inSeconds(() => exportTenant(destination.db, "bench"));
  const [, backSeconds] = await inSeconds(() =>
    importTenant(source.db, back.archive, { as: "bench-copy", domain: null }),
  );
  const results = [
    ["export from SQLite", exportSeconds],
    [`import into ${destination.dialect}`, importSeconds],
    [`export from ${destination.dialect}`, backExport],
    ["import into SQLite (--as)", backSeconds],
  ] as const;
  console.log(
    `\n${rows.toLocaleString("en-US")} rows, archive ${round(exported.archive.length / 1_048_576, 1)} MiB\n`,
  );
  console.log(
    formatTable(
      ["step", "seconds"],
      results.map(([step, s]) => [step, String(s)]),
    ),
  );
  const file = await writeResults("tenant-move.json", {
    machine: machineInfo(),
    subscribers: SUBSCRIBERS,
    rows,
    archiveBytes: exported.archive.length,
    seconds: Object.fromEntries(results),
  });
  console.log(`\nWritten to ${file}`);
} finally {
  await source.drop();
  await destination.drop();
}
