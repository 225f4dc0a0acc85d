import type * as def from "./columns";

/** Issue 15, part 6: the name a staff member signs newsletters with (the byline); optional. */
export async function up(db: def.MigrationDb): Promise<void> {
  await db.schema.alterTable("users").addColumn("display_name", "text").execute();
}

export async function down(db: def.MigrationDb): Promise<void> {
  await db.schema.alterTable("users").dropColumn("display_name").execute();
}
