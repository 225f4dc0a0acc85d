import type { Kysely } from "kysely";
import { autoIncrementId } from "../portable";

/**
 * Campaigns (a newsletter sent by email to lists), one delivery row per recipient, and what
 * recipients did with it (opens, clicks, unsubscribes, bounces). DESIGN.md §6.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("campaigns")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("tenant_id", "text", (col) =>
      col.notNull().references("tenants.id").onDelete("cascade"),
    )
    .addColumn("newsletter_id", "text", (col) =>
      col.references("newsletters.id").onDelete("set null"),
    )
    .addColumn("name", "text", (col) => col.notNull())
    .addColumn("subject", "text", (col) => col.notNull())
    .addColumn("from_name", "text", (col) => col.notNull())
    .addColumn("from_email", "text", (col) => col.notNull())
    // the cleaned content (SPEC §5), before the email wrapper
    .addColumn("content", "text", (col) => col.notNull())
    // JSON array of list ids
    .addColumn("list_ids", "text", (col) => col.notNull())
    .addColumn("track_opens", "integer", (col) => col.notNull())
    .addColumn("track_clicks", "integer", (col) => col.notNull())
    // draft | scheduled | sending | paused | sent | failed | cancelled
    .addColumn("status", "text", (col) => col.notNull())
    .addColumn("scheduled_at", "text")
    .addColumn("started_at", "text")
    .addColumn("finished_at", "text")
    // JSON array of the URLs a click may go to (index = link number in tracked links)
    .addColumn("links", "text", (col) => col.notNull().defaultTo("[]"))
    .addColumn("total", "integer", (col) => col.notNull().defaultTo(0))
    .addColumn("created_by", "text")
    .addColumn("created_at", "text", (col) => col.notNull())
    .addColumn("updated_at", "text", (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex("campaigns_tenant_status")
    .on("campaigns")
    .columns(["tenant_id", "status", "created_at"])
    .execute();

  await db.schema
    .createTable("deliveries")
    .addColumn("id", autoIncrementId(db), (col) => col.primaryKey())
    .addColumn("campaign_id", "text", (col) =>
      col.notNull().references("campaigns.id").onDelete("cascade"),
    )
    .addColumn("subscriber_id", "integer", (col) =>
      col.notNull().references("subscribers.id").onDelete("cascade"),
    )
    .addColumn("email", "text", (col) => col.notNull())
    // pending | sending | sent | failed | cancelled
    .addColumn("status", "text", (col) => col.notNull())
    .addColumn("attempts", "integer", (col) => col.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "text", (col) => col.notNull())
    // the worker holding a row in 'sending', and when it last said it was alive
    .addColumn("claimed_by", "text")
    .addColumn("claimed_at", "text")
    .addColumn("message_id", "text")
    .addColumn("error", "text")
    .addColumn("sent_at", "text")
    .addUniqueConstraint("deliveries_campaign_subscriber", ["campaign_id", "subscriber_id"])
    .execute();
  await db.schema
    .createIndex("deliveries_claim")
    .on("deliveries")
    .columns(["status", "next_attempt_at"])
    .execute();
  await db.schema
    .createIndex("deliveries_campaign_status")
    .on("deliveries")
    .columns(["campaign_id", "status"])
    .execute();

  await db.schema
    .createTable("campaign_events")
    .addColumn("id", autoIncrementId(db), (col) => col.primaryKey())
    .addColumn("campaign_id", "text", (col) =>
      col.notNull().references("campaigns.id").onDelete("cascade"),
    )
    .addColumn("delivery_id", "integer", (col) =>
      col.notNull().references("deliveries.id").onDelete("cascade"),
    )
    // open | click | unsubscribe | bounce
    .addColumn("kind", "text", (col) => col.notNull())
    .addColumn("url", "text")
    .addColumn("created_at", "text", (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex("campaign_events_campaign_kind")
    .on("campaign_events")
    .columns(["campaign_id", "kind", "delivery_id"])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("campaign_events").execute();
  await db.schema.dropTable("deliveries").execute();
  await db.schema.dropTable("campaigns").execute();
}
