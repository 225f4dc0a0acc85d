import * as def from "./columns";

/**
 * Issue 36, target 5: each tenant's sender domain checked against DNS (SPF, DKIM, DMARC, MX;
 * server/tenants/domain-checks.ts), on demand and daily. One row per tenant: the last result (JSON)
 * and when the next daily check is due, which the scheduler claims with a compare-and-set so that
 * of several instances one runs it, and a restart picks up where the last one left.
 */
export async function up(db: def.MigrationDb): Promise<void> {
  await db.schema
    .createTable("domain_checks")
    .addColumn("tenant_id", "text", (col) =>
      col.primaryKey().references("tenants.id").onDelete("cascade"),
    )
    .$call(def.requiredText("result", "checked_at", "trigger", "next_check_at"))
    .execute();
}

export async function down(db: def.MigrationDb): Promise<void> {
  await db.schema.dropTable("domain_checks").execute();
}
