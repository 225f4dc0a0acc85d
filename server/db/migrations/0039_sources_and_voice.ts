import * as def from "./columns";

/**
 * Issue 36, targets 3 and 4 (decision 047).
 *
 * `newsletter_view_sources`: a newsletter's views per day and per source ("email", "linkedin",
 * "other", "direct", "internal"), counted as the page is served. No IP, no cookie, no full
 * referrer: for "other" only the referring site's host, '' for every other source. One row per
 * (newsletter, day, source, host); the host adds to `views` in batches.
 *
 * `tenant_voice_notes`: the tenant's voice notes, the text the LLM drafts are written to (one row
 * per tenant at most).
 */
export async function up(db: def.MigrationDb): Promise<void> {
  await def
    .tenantTable(db, "newsletter_view_sources")
    .addColumn("newsletter_id", "text", def.ownedBy("newsletters.id"))
    .addColumn("day", "text", def.required)
    .addColumn("source", "text", def.required)
    .addColumn("host", "text", def.requiredWithDefault(""))
    .addColumn("views", "integer", def.requiredWithDefault(0))
    .execute();
  await db.schema
    .createIndex("newsletter_view_sources_key")
    .unique()
    .on("newsletter_view_sources")
    .columns(["tenant_id", "newsletter_id", "day", "source", "host"])
    .execute();
  await db.schema
    .createTable("tenant_voice_notes")
    .addColumn("tenant_id", "text", (col) =>
      col.primaryKey().references("tenants.id").onDelete("cascade"),
    )
    .addColumn("notes", "text", def.required)
    .addColumn("updated_by", "text", def.required)
    .addColumn("updated_at", "text", def.required)
    .execute();
}

export async function down(db: def.MigrationDb): Promise<void> {
  await db.schema.dropTable("tenant_voice_notes").execute();
  await db.schema.dropTable("newsletter_view_sources").execute();
}
