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
    const before = await migratorFor(db).migrateTo("0010_reply_to");
    expect(before.error).toBeUndefined();
    const now = new Date().toISOString();
    // Rows as a database of before 0011 holds them (raw SQL: the guard does not inspect it).
    await sql`insert into tenants (id, name, config, created_at, updated_at) values
      ('kd', 'KD', '{}', ${now}, ${now}), ('other', 'Other', '{}', ${now}, ${now})`.execute(db);
    for (const [id, tenant] of [
      [1, "kd"],
      [2, "other"],
    ] as const) {
      await sql`insert into subscribers (id, tenant_id, email, name, status, created_at, updated_at)
        values (${id}, ${tenant}, ${`reader${id}@example.com`}, '', 'active', ${now}, ${now})`.execute(
        db,
      );
      await sql`insert into lists (id, tenant_id, key, name, created_at) values
        (${id}, ${tenant}, 'newsletter', 'Newsletter', ${now})`.execute(db);
      await sql`insert into subscriptions (subscriber_id, list_id, created_at)
        values (${id}, ${id}, ${now})`.execute(db);
      await sql`insert into preference_changes (subscriber_id, token_hash, active_lists, inactive_lists, created_at, expires_at)
        values (${id}, 'hash', '[]', '[]', ${now}, ${now})`.execute(db);
      await sql`insert into campaigns (id, tenant_id, name, subject, from_name, from_email, content, list_ids, track_opens, track_clicks, status, created_at, updated_at)
        values (${`c${id}`}, ${tenant}, 'C', 'S', 'F', 'f@example.com', '<p>x</p>', '[]', 1, 1, 'sent', ${now}, ${now})`.execute(
        db,
      );
      await sql`insert into deliveries (id, campaign_id, subscriber_id, email, status, next_attempt_at)
        values (${id}, ${`c${id}`}, ${id}, ${`reader${id}@example.com`}, 'sent', ${now})`.execute(
        db,
      );
      await sql`insert into campaign_events (campaign_id, delivery_id, kind, created_at)
        values (${`c${id}`}, ${id}, 'open', ${now})`.execute(db);
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
