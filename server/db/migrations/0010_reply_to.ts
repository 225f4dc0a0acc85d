import type * as def from "./columns";

/** A campaign may name its own Reply-To address (issue 12); null takes the tenant's. */
export async function up(db: def.MigrationDb): Promise<void> {
  await db.schema.alterTable("campaigns").addColumn("reply_to", "text").execute();
}

export async function down(db: def.MigrationDb): Promise<void> {
  await db.schema.alterTable("campaigns").dropColumn("reply_to").execute();
}
