import * as def from "./columns";

/**
 * Published newsletters are listed newest first with the id as the tie-break (`published_at desc,
 * id desc`: the home page's newest issue, the archive, a tag's and a year's pages). The index
 * stopped at `published_at`, so SQLite sorted each answer in a temporary B-tree, even for the one
 * row the home page reads (decision 053). With the id in it, the index gives the order itself.
 */
export async function up(db: def.MigrationDb): Promise<void> {
  await db.schema.dropIndex("newsletters_tenant_status_published").execute();
  await def.createIndex(db, "newsletters_tenant_status_published", "newsletters", [
    "tenant_id",
    "status",
    "published_at",
    "id",
  ]);
}

export async function down(db: def.MigrationDb): Promise<void> {
  await db.schema.dropIndex("newsletters_tenant_status_published").execute();
  await def.createIndex(db, "newsletters_tenant_status_published", "newsletters", [
    "tenant_id",
    "status",
    "published_at",
  ]);
}
