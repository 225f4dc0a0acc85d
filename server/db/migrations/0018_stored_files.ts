import { sql } from "kysely";
import { isPostgres } from "../portable";
import * as def from "./columns";

/**
 * Issue 14, part 6: uploads every instance can read. On PostgreSQL without S3 the bytes live here
 * (`stored_files`); on SQLite the table is made too, for one schema on both, but stays empty: a
 * single instance keeps its files on disk.
 */
export async function up(db: def.MigrationDb): Promise<void> {
  await db.schema
    .createTable("stored_files")
    .addColumn("key", "text", def.primaryKey)
    .addColumn("tenant_id", "text", def.ownedBy("tenants.id"))
    .addColumn("content_type", "text", def.required)
    .addColumn("bytes", isPostgres(db) ? sql`bytea` : sql`blob`, def.required)
    .addColumn("created_at", "text", def.required)
    .execute();
}

export async function down(db: def.MigrationDb): Promise<void> {
  await db.schema.dropTable("stored_files").execute();
}
