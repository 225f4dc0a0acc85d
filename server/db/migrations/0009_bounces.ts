import type { Kysely } from "kysely";

/**
 * Bounces and complaints (issue 12, part 6): when a delivery bounced (at send time or by a DSN) or
 * its recipient complained (an ARF report), and what the report said. Subscribers gain the
 * statuses `bounced` and `complained` (the status column is text), which suppress the address.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("deliveries").addColumn("bounced_at", "text").execute();
  await db.schema.alterTable("deliveries").addColumn("complained_at", "text").execute();
  // the SMTP answer or the DSN's status and diagnostic, or the complaint's feedback type
  await db.schema.alterTable("deliveries").addColumn("feedback", "text").execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("deliveries").dropColumn("feedback").execute();
  await db.schema.alterTable("deliveries").dropColumn("complained_at").execute();
  await db.schema.alterTable("deliveries").dropColumn("bounced_at").execute();
}
