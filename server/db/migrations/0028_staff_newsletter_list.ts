import type * as def from "./columns";

/**
 * Issue 17: the staff newsletter list reads a tenant's newsletters newest change first, a page at
 * a time. Without this index every page sorted all of the tenant's rows, content included (14 ms
 * of CPU per dashboard at 1,000 newsletters).
 */
export async function up(db: def.MigrationDb): Promise<void> {
  await db.schema
    .createIndex("newsletters_tenant_updated")
    .on("newsletters")
    .columns(["tenant_id", "updated_at", "id"])
    .execute();
}

export async function down(db: def.MigrationDb): Promise<void> {
  await db.schema.dropIndex("newsletters_tenant_updated").execute();
}
