import * as def from "./columns";

/**
 * Campaigns (a newsletter sent by email to lists), one delivery row per recipient, and what
 * recipients did with it (opens, clicks, unsubscribes, bounces). DESIGN.md §6.
 */
export async function up(db: def.MigrationDb): Promise<void> {
  await def
    .tenantTable(db, "campaigns", "text")
    .addColumn("newsletter_id", "text", def.optionalRef("newsletters.id"))
    .$call(def.requiredText("name", "subject", "from_name", "from_email"))
    // the cleaned content (SPEC §5), before the email wrapper
    .addColumn("content", "text", def.required)
    // JSON array of list ids
    .addColumn("list_ids", "text", def.required)
    .addColumn("track_opens", "integer", def.required)
    .addColumn("track_clicks", "integer", def.required)
    // draft | scheduled | sending | paused | sent | failed | cancelled
    .addColumn("status", "text", def.required)
    .addColumn("scheduled_at", "text")
    .addColumn("started_at", "text")
    .addColumn("finished_at", "text")
    // JSON array of the URLs a click may go to (index = link number in tracked links)
    .addColumn("links", "text", def.requiredWithDefault("[]"))
    .addColumn("total", "integer", def.requiredWithDefault(0))
    .addColumn("created_by", "text")
    .$call(def.requiredText("created_at", "updated_at"))
    .execute();
  await def.createIndex(db, "campaigns_tenant_status", "campaigns", [
    "tenant_id",
    "status",
    "created_at",
  ]);

  await db.schema
    .createTable("deliveries")
    .addColumn("id", def.autoIncrementId(db), def.primaryKey)
    .addColumn("campaign_id", "text", def.ownedBy("campaigns.id"))
    .addColumn("subscriber_id", "integer", def.ownedBy("subscribers.id"))
    .addColumn("email", "text", def.required)
    // pending | sending | sent | failed | cancelled
    .addColumn("status", "text", def.required)
    .addColumn("attempts", "integer", def.requiredWithDefault(0))
    .addColumn("next_attempt_at", "text", def.required)
    // the worker holding a row in 'sending', and when it last said it was alive
    .addColumn("claimed_by", "text")
    .addColumn("claimed_at", "text")
    .addColumn("message_id", "text")
    .addColumn("error", "text")
    .addColumn("sent_at", "text")
    .addUniqueConstraint("deliveries_campaign_subscriber", ["campaign_id", "subscriber_id"])
    .execute();
  await def.createIndex(db, "deliveries_claim", "deliveries", ["status", "next_attempt_at"]);
  await def.createIndex(db, "deliveries_campaign_status", "deliveries", ["campaign_id", "status"]);

  await db.schema
    .createTable("campaign_events")
    .addColumn("id", def.autoIncrementId(db), def.primaryKey)
    .addColumn("campaign_id", "text", def.ownedBy("campaigns.id"))
    .addColumn("delivery_id", "integer", def.ownedBy("deliveries.id"))
    // open | click | unsubscribe | bounce
    .addColumn("kind", "text", def.required)
    .addColumn("url", "text")
    .addColumn("created_at", "text", def.required)
    .execute();
  await def.createIndex(db, "campaign_events_campaign_kind", "campaign_events", [
    "campaign_id",
    "kind",
    "delivery_id",
  ]);
}

export async function down(db: def.MigrationDb): Promise<void> {
  await db.schema.dropTable("campaign_events").execute();
  await db.schema.dropTable("deliveries").execute();
  await db.schema.dropTable("campaigns").execute();
}
