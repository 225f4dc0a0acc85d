import type { Kysely } from "kysely";

/** A campaign may name its own Reply-To address (issue 12); null takes the tenant's. */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("campaigns").addColumn("reply_to", "text").execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("campaigns").dropColumn("reply_to").execute();
}
