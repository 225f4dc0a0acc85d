import type * as def from "./columns";

/**
 * Bounces and complaints (issue 12, part 6): when a delivery bounced (at send time or by a DSN) or
 * its recipient complained (an ARF report), and what the report said. Subscribers gain the
 * statuses `bounced` and `complained` (the status column is text), which suppress the address.
 */
export async function up(db: def.MigrationDb): Promise<void> {
  await db.schema.alterTable("deliveries").addColumn("bounced_at", "text").execute();
  await db.schema.alterTable("deliveries").addColumn("complained_at", "text").execute();
  // the SMTP answer or the DSN's status and diagnostic, or the complaint's feedback type
  await db.schema.alterTable("deliveries").addColumn("feedback", "text").execute();
}

export async function down(db: def.MigrationDb): Promise<void> {
  await db.schema.alterTable("deliveries").dropColumn("feedback").execute();
  await db.schema.alterTable("deliveries").dropColumn("complained_at").execute();
  await db.schema.alterTable("deliveries").dropColumn("bounced_at").execute();
}
