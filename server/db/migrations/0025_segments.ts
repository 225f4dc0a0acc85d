import * as def from "./columns";

/**
 * Issue 16, points 4 and 8: segments — a tenant's saved filters of its audience (the rule as JSON, read by
 * server/subscribers/segments.ts) — and a campaign's audience as lists and segments. The indexes
 * let a segment ask "opened or clicked in the last N days" per subscriber without a scan. An open
 * a machine made (a privacy proxy fetching every pixel, a mail scanner) is flagged, not counted.
 */
export async function up(db: def.MigrationDb): Promise<void> {
  await def
    .tenantTable(db, "segments")
    .addColumn("name", "text", def.required)
    .addColumn("rule", "text", def.required)
    .addColumn("created_at", "text", def.required)
    .addColumn("updated_at", "text", def.required)
    .execute();
  await db.schema
    .alterTable("campaigns")
    .addColumn("segment_ids", "text", def.requiredWithDefault("[]"))
    .execute();
  await db.schema
    .alterTable("campaign_events")
    .addColumn("machine", "integer", def.requiredWithDefault(0))
    .execute();
  await def.createIndex(db, "deliveries_by_subscriber", "deliveries", ["subscriber_id"]);
  await def.createIndex(db, "campaign_events_by_delivery", "campaign_events", [
    "delivery_id",
    "kind",
    "created_at",
  ]);
}

export async function down(db: def.MigrationDb): Promise<void> {
  await db.schema.dropIndex("campaign_events_by_delivery").execute();
  await db.schema.dropIndex("deliveries_by_subscriber").execute();
  await db.schema.alterTable("campaign_events").dropColumn("machine").execute();
  await db.schema.alterTable("campaigns").dropColumn("segment_ids").execute();
  await db.schema.dropTable("segments").execute();
}
