import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { migrateToLatest, migratorFor } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";

describe.each(testDialects())("migration 0011 (child tables carry the tenant) on %s", (dialect) => {
  let database: TestDatabase | undefined;

  afterEach(async () => {
    await database?.drop();
    database = undefined;
  });

  it("gives existing subscriptions, pending changes, deliveries and events their parent's tenant", async () => {
    database = await createTestDatabase(dialect);
    const { db } = database;
    // Raw SQL on tenant tables, as a database of before 0011 is written: cross-tenant.
    const raw = crossTenant(db);
    const before = await migratorFor(db).migrateTo("0010_reply_to");
    expect(before.error).toBeUndefined();
    const now = new Date().toISOString();
    // Rows as a database of before 0011 holds them.
    await sql`insert into tenants (id, name, config, created_at, updated_at) values
      ('kd', 'KD', '{}', ${now}, ${now}), ('other', 'Other', '{}', ${now}, ${now})`.execute(raw);
    for (const [id, tenant] of [
      [1, "kd"],
      [2, "other"],
    ] as const) {
      await sql`insert into subscribers (id, tenant_id, email, name, status, created_at, updated_at)
        values (${id}, ${tenant}, ${`reader${id}@example.com`}, '', 'active', ${now}, ${now})`.execute(
        raw,
      );
      await sql`insert into lists (id, tenant_id, key, name, created_at) values
        (${id}, ${tenant}, 'newsletter', 'Newsletter', ${now})`.execute(raw);
      await sql`insert into subscriptions (subscriber_id, list_id, created_at)
        values (${id}, ${id}, ${now})`.execute(raw);
      await sql`insert into preference_changes (subscriber_id, token_hash, active_lists, inactive_lists, created_at, expires_at)
        values (${id}, 'hash', '[]', '[]', ${now}, ${now})`.execute(raw);
      await sql`insert into campaigns (id, tenant_id, name, subject, from_name, from_email, content, list_ids, track_opens, track_clicks, status, created_at, updated_at)
        values (${`c${id}`}, ${tenant}, 'C', 'S', 'F', 'f@example.com', '<p>x</p>', '[]', 1, 1, 'sent', ${now}, ${now})`.execute(
        raw,
      );
      await sql`insert into deliveries (id, campaign_id, subscriber_id, email, status, next_attempt_at)
        values (${id}, ${`c${id}`}, ${id}, ${`reader${id}@example.com`}, 'sent', ${now})`.execute(
        raw,
      );
      await sql`insert into campaign_events (campaign_id, delivery_id, kind, created_at)
        values (${`c${id}`}, ${id}, 'open', ${now})`.execute(raw);
    }

    await migrateToLatest(db);

    const all = crossTenant(db);
    const subscriptions = await all
      .selectFrom("subscriptions")
      .select(["subscriber_id", "tenant_id"])
      .orderBy("subscriber_id")
      .execute();
    expect(subscriptions).toEqual([
      { subscriber_id: 1, tenant_id: "kd" },
      { subscriber_id: 2, tenant_id: "other" },
    ]);
    const changes = await all
      .selectFrom("preference_changes")
      .select(["subscriber_id", "tenant_id"])
      .orderBy("subscriber_id")
      .execute();
    expect(changes).toEqual([
      { subscriber_id: 1, tenant_id: "kd" },
      { subscriber_id: 2, tenant_id: "other" },
    ]);
    const deliveries = await all
      .selectFrom("deliveries")
      .select(["id", "tenant_id"])
      .orderBy("id")
      .execute();
    expect(deliveries).toEqual([
      { id: 1, tenant_id: "kd" },
      { id: 2, tenant_id: "other" },
    ]);
    const events = await all
      .selectFrom("campaign_events")
      .select(["delivery_id", "tenant_id"])
      .orderBy("delivery_id")
      .execute();
    expect(events).toEqual([
      { delivery_id: 1, tenant_id: "kd" },
      { delivery_id: 2, tenant_id: "other" },
    ]);
    // From now on the guard checks these tables like any other.
    await expect(
      db.selectFrom("deliveries").select("id").where("campaign_id", "=", "c1").execute(),
    ).rejects.toThrow("select on deliveries without a tenant_id condition");
  });
});

describe.each(testDialects())("migration 0031 (tenant_id required) on %s", (dialect) => {
  let database: TestDatabase | undefined;

  afterEach(async () => {
    await database?.drop();
    database = undefined;
  });

  it("gives rows written without a tenant their parent's, then refuses such a row", async () => {
    database = await createTestDatabase(dialect);
    const raw = crossTenant(database.db);
    const before = await migratorFor(database.db).migrateTo("0030_archive_imports");
    expect(before.error).toBeUndefined();
    const now = new Date().toISOString();
    await sql`insert into tenants (id, name, config, created_at, updated_at) values
      ('kd', 'KD', '{}', ${now}, ${now})`.execute(raw);
    await sql`insert into subscribers (id, tenant_id, email, name, status, created_at, updated_at)
      values (1, 'kd', 'reader@example.com', '', 'active', ${now}, ${now}),
        (2, 'kd', 'other@example.com', '', 'active', ${now}, ${now})`.execute(raw);
    await sql`insert into lists (id, tenant_id, key, name, created_at)
      values (1, 'kd', 'newsletter', 'Newsletter', ${now})`.execute(raw);
    // The row of the issue: written without its tenant, it was in no campaign's audience.
    await sql`insert into subscriptions (subscriber_id, list_id, created_at)
      values (1, 1, ${now})`.execute(raw);

    await migrateToLatest(database.db);

    expect(
      await raw.selectFrom("subscriptions").select(["subscriber_id", "tenant_id"]).execute(),
    ).toEqual([{ subscriber_id: 1, tenant_id: "kd" }]);
    const refused = /NOT NULL constraint failed|null value in column "tenant_id"/;
    await expect(
      sql`insert into subscriptions (subscriber_id, list_id, created_at)
        values (2, 1, ${now})`.execute(raw),
    ).rejects.toThrow(refused);
    await expect(
      sql`update subscriptions set tenant_id = null where subscriber_id = 1`.execute(raw),
    ).rejects.toThrow(refused);
    // The other child tables: required alike (PostgreSQL names the first null column of a
    // row, so it is asked for the constraint itself).
    for (const table of ["preference_changes", "deliveries", "campaign_events"]) {
      if (dialect === "postgres") {
        const { rows } = await sql<{ is_nullable: string }>`select is_nullable
          from information_schema.columns where table_name = ${table} and column_name = 'tenant_id'`.execute(
          raw,
        );
        expect(rows).toEqual([{ is_nullable: "NO" }]);
      } else {
        await expect(
          sql`insert into ${sql.table(table)} (tenant_id) values (null)`.execute(raw),
        ).rejects.toThrow(`NOT NULL constraint failed: ${table}.tenant_id`);
      }
    }
  });
});
