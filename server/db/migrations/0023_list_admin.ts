import * as def from "./columns";

/**
 * Issue 16, point 1: lists staff manage. A list is public (offered on sign-up and in the preference
 * centre) or private (staff only); an archived list keeps its subscribers but is offered nowhere;
 * a deleted list loses its subscriptions and stays as a tombstone, so campaign reports keep its
 * name and a default list the tenant's settings name is not created again.
 */
export async function up(db: def.MigrationDb): Promise<void> {
  await db.schema
    .alterTable("lists")
    .addColumn("visibility", "text", def.requiredWithDefault("public"))
    .execute();
  for (const column of ["archived_at", "deleted_at"]) {
    await db.schema.alterTable("lists").addColumn(column, "text").execute();
  }
}

export async function down(db: def.MigrationDb): Promise<void> {
  for (const column of ["deleted_at", "archived_at", "visibility"]) {
    await db.schema.alterTable("lists").dropColumn(column).execute();
  }
}
