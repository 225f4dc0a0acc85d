import * as def from "./columns";

/**
 * Issue 44, target 4 (decision 057): a tenant's own limits, one row per tenant at most. Each
 * column is null (the install's default, LIMIT_* in the environment), -1 (unlimited) or the limit
 * itself (0 included: none allowed). bigint: storage is counted in bytes.
 */
const LIMIT_COLUMNS = [
  "subscribers",
  "campaign_mails_per_month",
  "test_sends_per_day",
  "storage_bytes",
  "imports_at_once",
  "api_requests_per_minute",
];

export async function up(db: def.MigrationDb): Promise<void> {
  let table = db.schema
    .createTable("tenant_limits")
    .addColumn("tenant_id", "text", (col) =>
      col.primaryKey().references("tenants.id").onDelete("cascade"),
    );
  for (const column of LIMIT_COLUMNS) table = table.addColumn(column, "bigint");
  await table
    .addColumn("updated_by", "text", def.required)
    .addColumn("updated_at", "text", def.required)
    .execute();
}

export async function down(db: def.MigrationDb): Promise<void> {
  await db.schema.dropTable("tenant_limits").execute();
}
