import { sql } from "kysely";
import type * as def from "./columns";

/**
 * Issue 13: the tables that hung off a tenant's row through a parent (subscriptions and
 * preference_changes through subscribers, deliveries and campaign_events through campaigns) carry
 * the tenant themselves, so the tenant guard (server/db/tenant-guard.ts) can check every query on
 * them too. Existing rows take their parent's tenant.
 */
const CHILDREN = [
  { table: "subscriptions", parent: "subscribers", key: "subscriber_id" },
  { table: "preference_changes", parent: "subscribers", key: "subscriber_id" },
  { table: "deliveries", parent: "campaigns", key: "campaign_id" },
  { table: "campaign_events", parent: "campaigns", key: "campaign_id" },
] as const;

export async function up(db: def.MigrationDb): Promise<void> {
  for (const { table, parent, key } of CHILDREN) {
    await db.schema.alterTable(table).addColumn("tenant_id", "text").execute();
    await sql`UPDATE ${sql.table(table)} SET tenant_id = (SELECT p.tenant_id FROM ${sql.table(parent)} p WHERE p.id = ${sql.ref(`${table}.${key}`)})`.execute(
      db,
    );
  }
}

export async function down(db: def.MigrationDb): Promise<void> {
  for (const { table } of [...CHILDREN].reverse()) {
    await db.schema.alterTable(table).dropColumn("tenant_id").execute();
  }
}
