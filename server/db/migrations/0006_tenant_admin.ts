import * as def from "./columns";

/**
 * The tenant manager's audit history and the API tokens super admins create for scripts
 * (issue 6: DESIGN.md §7.5, §8).
 */
export async function up(db: def.MigrationDb): Promise<void> {
  await db.schema
    .createTable("tenant_changes")
    .addColumn("id", def.autoIncrementId(db), def.primaryKey)
    // no foreign key: the history of a deleted tenant is kept
    .addColumn("tenant_id", "text", def.required)
    // created | updated | deleted
    .addColumn("action", "text", def.required)
    // who: the staff member's email (and the API token's name when one was used)
    .addColumn("actor", "text", def.required)
    // JSON array of { field, before, after }
    .$call(def.requiredText("changes", "created_at"))
    .execute();
  await def.createIndex(db, "tenant_changes_tenant_created", "tenant_changes", [
    "tenant_id",
    "created_at",
  ]);

  await db.schema
    .createTable("api_tokens")
    .addColumn("id", "text", def.primaryKey)
    .addColumn("name", "text", def.required)
    // SHA-256 of the token: the token itself is shown once and never stored
    .addColumn("token_hash", "text", (col) => col.notNull().unique())
    .addColumn("user_id", "text", def.ownedBy("users.id"))
    .addColumn("created_at", "text", def.required)
    .addColumn("last_used_at", "text")
    .addColumn("revoked_at", "text")
    .execute();
}

export async function down(db: def.MigrationDb): Promise<void> {
  await db.schema.dropTable("api_tokens").execute();
  await db.schema.dropTable("tenant_changes").execute();
}
