import * as def from "./columns";

/**
 * newsletters.render_version rises whenever what the public page shows changes without the
 * newsletter itself changing (a comment added, hidden, shown or deleted): the page cache's key.
 */
export async function up(db: def.MigrationDb): Promise<void> {
  await db.schema
    .alterTable("newsletters")
    .addColumn("render_version", "integer", def.requiredWithDefault(0))
    .execute();
}

export async function down(db: def.MigrationDb): Promise<void> {
  await db.schema.alterTable("newsletters").dropColumn("render_version").execute();
}
