import type * as def from "./columns";

/**
 * Issue 14, part 2: one feedback answer per unsubscribe. A feedback row names the unsubscribe it
 * answers (the subscriber's unsubscribed_at); the unique index refuses a second answer to the same
 * one, on both databases, even when two arrive at once. Older rows keep NULL, which the index allows.
 */
export async function up(db: def.MigrationDb): Promise<void> {
  await db.schema.alterTable("unsubscribe_feedback").addColumn("unsubscribed_at", "text").execute();
  await db.schema
    .createIndex("unsubscribe_feedback_once")
    .on("unsubscribe_feedback")
    .columns(["tenant_id", "subscriber_id", "unsubscribed_at"])
    .unique()
    .execute();
}

export async function down(db: def.MigrationDb): Promise<void> {
  await db.schema.dropIndex("unsubscribe_feedback_once").execute();
  await db.schema.alterTable("unsubscribe_feedback").dropColumn("unsubscribed_at").execute();
}
