import * as def from "./columns";

/**
 * Issue 36, target 1: a newsletter's social pack keeps its two texts, the LinkedIn post and the
 * short post (server/social/pack.ts). `edited` is 1 once staff saved their own words: until then
 * the texts follow the newsletter (made again from it when the pack is opened).
 */
export async function up(db: def.MigrationDb): Promise<void> {
  await db.schema
    .createTable("newsletter_social")
    .addColumn("tenant_id", "text", def.ownedBy("tenants.id"))
    .addColumn("newsletter_id", "text", def.ownedBy("newsletters.id"))
    .addColumn("linkedin_text", "text", def.required)
    .addColumn("short_text", "text", def.required)
    .addColumn("edited", "integer", def.requiredWithDefault(0))
    .addColumn("updated_at", "text", def.required)
    .addPrimaryKeyConstraint("newsletter_social_pk", ["tenant_id", "newsletter_id"])
    .execute();
}

export async function down(db: def.MigrationDb): Promise<void> {
  await db.schema.dropTable("newsletter_social").execute();
}
