import type { Kysely } from "kysely";
import { autoIncrementId } from "../portable";

/**
 * The tenant manager's audit history and the API tokens super admins create for scripts
 * (issue 6: DESIGN.md §7.5, §8).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("tenant_changes")
    .addColumn("id", autoIncrementId(db), (col) => col.primaryKey())
    // no foreign key: the history of a deleted tenant is kept
    .addColumn("tenant_id", "text", (col) => col.notNull())
    // created | updated | deleted
    .addColumn("action", "text", (col) => col.notNull())
    // who: the staff member's email (and the API token's name when one was used)
    .addColumn("actor", "text", (col) => col.notNull())
    // JSON array of { field, before, after }
    .addColumn("changes", "text", (col) => col.notNull())
    .addColumn("created_at", "text", (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex("tenant_changes_tenant_created")
    .on("tenant_changes")
    .columns(["tenant_id", "created_at"])
    .execute();

  await db.schema
    .createTable("api_tokens")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("name", "text", (col) => col.notNull())
    // SHA-256 of the token: the token itself is shown once and never stored
    .addColumn("token_hash", "text", (col) => col.notNull().unique())
    .addColumn("user_id", "text", (col) => col.notNull().references("users.id").onDelete("cascade"))
    .addColumn("created_at", "text", (col) => col.notNull())
    .addColumn("last_used_at", "text")
    .addColumn("revoked_at", "text")
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("api_tokens").execute();
  await db.schema.dropTable("tenant_changes").execute();
}
