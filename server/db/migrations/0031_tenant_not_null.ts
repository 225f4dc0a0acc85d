import { sql } from "kysely";
import { isPostgres } from "../portable";
import type * as def from "./columns";

/**
 * Issue 34: the child tables' tenant_id (added nullable by 0011) is required. A row without it
 * was left out of every tenant's queries: a subscription written without it was silently not
 * sent any campaign. mail_log keeps null (staff mail belongs to no tenant).
 *
 * PostgreSQL: NOT NULL. SQLite cannot add a constraint to a column, and rebuilding these tables
 * would copy every delivery and subscription and recreate their triggers and the foreign keys
 * that point at them; a trigger refusing a null tenant_id (insert, or update to null) makes the
 * database refuse the row as surely, at once on any size.
 */
const CHILDREN = [
  { table: "subscriptions", parent: "subscribers", key: "subscriber_id" },
  { table: "preference_changes", parent: "subscribers", key: "subscriber_id" },
  { table: "deliveries", parent: "campaigns", key: "campaign_id" },
  { table: "campaign_events", parent: "campaigns", key: "campaign_id" },
] as const;

export async function up(db: def.MigrationDb): Promise<void> {
  for (const { table, parent, key } of CHILDREN) {
    // Rows written without it since 0011 take their parent's tenant, as 0011 did.
    await sql`UPDATE ${sql.table(table)} SET tenant_id = (SELECT p.tenant_id FROM ${sql.table(parent)} p WHERE p.id = ${sql.ref(`${table}.${key}`)}) WHERE tenant_id IS NULL`.execute(
      db,
    );
    if (isPostgres(db)) {
      await sql`ALTER TABLE ${sql.table(table)} ALTER COLUMN tenant_id SET NOT NULL`.execute(db);
      continue;
    }
    for (const [event, when] of [
      ["insert", sql`BEFORE INSERT ON ${sql.table(table)}`],
      ["update", sql`BEFORE UPDATE OF tenant_id ON ${sql.table(table)}`],
    ] as const) {
      await sql`CREATE TRIGGER ${sql.raw(`${table}_tenant_required_${event}`)} ${when}
        WHEN NEW.tenant_id IS NULL
        BEGIN SELECT RAISE(ABORT, ${sql.lit(`NOT NULL constraint failed: ${table}.tenant_id`)}); END`.execute(
        db,
      );
    }
  }
}

export async function down(db: def.MigrationDb): Promise<void> {
  for (const { table } of CHILDREN) {
    if (isPostgres(db)) {
      await sql`ALTER TABLE ${sql.table(table)} ALTER COLUMN tenant_id DROP NOT NULL`.execute(db);
      continue;
    }
    for (const event of ["insert", "update"]) {
      await sql`DROP TRIGGER ${sql.raw(`${table}_tenant_required_${event}`)}`.execute(db);
    }
  }
}
