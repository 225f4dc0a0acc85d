import * as def from "./columns";

/**
 * Issue 33, target 3 (the audience half): a subscriber import says where its people come from —
 * a Herald CSV, a Ghost members CSV, a Substack email list, or a MailerLite account a tenant
 * leaves — and a MailerLite move keeps the cursor of the next page it has not written yet, so a
 * move that failed half way goes on from there.
 */
export async function up(db: def.MigrationDb): Promise<void> {
  await db.schema
    .alterTable("subscriber_imports")
    // herald | ghost | substack | mailerlite
    .addColumn("source", "text", def.requiredWithDefault("herald"))
    .execute();
  await db.schema.alterTable("subscriber_imports").addColumn("cursor", "text").execute();
}

export async function down(db: def.MigrationDb): Promise<void> {
  await db.schema.alterTable("subscriber_imports").dropColumn("cursor").execute();
  await db.schema.alterTable("subscriber_imports").dropColumn("source").execute();
}
