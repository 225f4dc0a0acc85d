import type { Kysely } from "kysely";
import { autoIncrementId } from "../portable";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("lists")
    .addColumn("id", autoIncrementId(db), (col) => col.primaryKey())
    .addColumn("tenant_id", "text", (col) =>
      col.notNull().references("tenants.id").onDelete("cascade"),
    )
    .addColumn("key", "text", (col) => col.notNull())
    .addColumn("name", "text", (col) => col.notNull())
    .addColumn("description", "text", (col) => col.notNull().defaultTo(""))
    .addColumn("created_at", "text", (col) => col.notNull())
    .addUniqueConstraint("lists_tenant_key", ["tenant_id", "key"])
    .execute();

  await db.schema
    .createTable("subscribers")
    .addColumn("id", autoIncrementId(db), (col) => col.primaryKey())
    .addColumn("tenant_id", "text", (col) =>
      col.notNull().references("tenants.id").onDelete("cascade"),
    )
    // stored trimmed and lower-cased: unique per tenant, case-insensitively
    .addColumn("email", "text", (col) => col.notNull())
    .addColumn("name", "text", (col) => col.notNull().defaultTo(""))
    // active | unsubscribed | unconfirmed (double opt-in pending)
    .addColumn("status", "text", (col) => col.notNull())
    .addColumn("subscribed_at", "text")
    .addColumn("unsubscribed_at", "text")
    .addColumn("created_at", "text", (col) => col.notNull())
    .addColumn("updated_at", "text", (col) => col.notNull())
    .addUniqueConstraint("subscribers_tenant_email", ["tenant_id", "email"])
    .execute();
  await db.schema
    .createIndex("subscribers_tenant_status")
    .on("subscribers")
    .columns(["tenant_id", "status"])
    .execute();

  await db.schema
    .createTable("subscriptions")
    .addColumn("subscriber_id", "integer", (col) =>
      col.notNull().references("subscribers.id").onDelete("cascade"),
    )
    .addColumn("list_id", "integer", (col) =>
      col.notNull().references("lists.id").onDelete("cascade"),
    )
    .addColumn("created_at", "text", (col) => col.notNull())
    .addPrimaryKeyConstraint("subscriptions_pk", ["subscriber_id", "list_id"])
    .execute();
  await db.schema.createIndex("subscriptions_list").on("subscriptions").column("list_id").execute();

  // One pending preference change per subscriber; a new request replaces the old one.
  await db.schema
    .createTable("preference_changes")
    .addColumn("subscriber_id", "integer", (col) =>
      col.primaryKey().references("subscribers.id").onDelete("cascade"),
    )
    .addColumn("token_hash", "text", (col) => col.notNull())
    .addColumn("active_lists", "text", (col) => col.notNull())
    .addColumn("inactive_lists", "text", (col) => col.notNull())
    .addColumn("created_at", "text", (col) => col.notNull())
    .addColumn("expires_at", "text", (col) => col.notNull())
    .addColumn("used_at", "text")
    .execute();

  await db.schema
    .createTable("unsubscribe_feedback")
    .addColumn("id", autoIncrementId(db), (col) => col.primaryKey())
    .addColumn("tenant_id", "text", (col) =>
      col.notNull().references("tenants.id").onDelete("cascade"),
    )
    .addColumn("subscriber_id", "integer", (col) =>
      col.references("subscribers.id").onDelete("set null"),
    )
    .addColumn("reason", "text", (col) => col.notNull())
    .addColumn("details", "text")
    .addColumn("created_at", "text", (col) => col.notNull())
    .execute();

  // Every message Herald sends or keeps in the outbox, with what is needed to retry it.
  await db.schema
    .createTable("mail_log")
    .addColumn("id", autoIncrementId(db), (col) => col.primaryKey())
    .addColumn("tenant_id", "text", (col) => col.references("tenants.id").onDelete("set null"))
    .addColumn("kind", "text", (col) => col.notNull())
    .addColumn("to_address", "text", (col) => col.notNull())
    .addColumn("from_address", "text", (col) => col.notNull())
    .addColumn("subject", "text", (col) => col.notNull())
    .addColumn("html", "text", (col) => col.notNull())
    .addColumn("text", "text", (col) => col.notNull())
    .addColumn("headers", "text", (col) => col.notNull().defaultTo("{}"))
    // pending | sent | outbox | failed
    .addColumn("status", "text", (col) => col.notNull())
    .addColumn("attempts", "integer", (col) => col.notNull().defaultTo(0))
    .addColumn("error", "text")
    .addColumn("message_id", "text")
    .addColumn("created_at", "text", (col) => col.notNull())
    .addColumn("sent_at", "text")
    .addColumn("next_attempt_at", "text")
    .execute();
  await db.schema
    .createIndex("mail_log_tenant_created")
    .on("mail_log")
    .columns(["tenant_id", "created_at"])
    .execute();
  await db.schema
    .createIndex("mail_log_retry")
    .on("mail_log")
    .columns(["status", "next_attempt_at"])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    "mail_log",
    "unsubscribe_feedback",
    "preference_changes",
    "subscriptions",
    "subscribers",
    "lists",
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
