import * as def from "./columns";

export async function up(db: def.MigrationDb): Promise<void> {
  await def
    .tenantTable(db, "lists")
    .$call(def.requiredText("key", "name"))
    .addColumn("description", "text", def.requiredWithDefault(""))
    .addColumn("created_at", "text", def.required)
    .addUniqueConstraint("lists_tenant_key", ["tenant_id", "key"])
    .execute();

  await def
    .tenantTable(db, "subscribers")
    // stored trimmed and lower-cased: unique per tenant, case-insensitively
    .addColumn("email", "text", def.required)
    .addColumn("name", "text", def.requiredWithDefault(""))
    // active | unsubscribed | unconfirmed (double opt-in pending)
    .addColumn("status", "text", def.required)
    .addColumn("subscribed_at", "text")
    .addColumn("unsubscribed_at", "text")
    .$call(def.requiredText("created_at", "updated_at"))
    .addUniqueConstraint("subscribers_tenant_email", ["tenant_id", "email"])
    .execute();
  await def.createIndex(db, "subscribers_tenant_status", "subscribers", ["tenant_id", "status"]);

  await db.schema
    .createTable("subscriptions")
    .addColumn("subscriber_id", "integer", def.ownedBy("subscribers.id"))
    .addColumn("list_id", "integer", def.ownedBy("lists.id"))
    .addColumn("created_at", "text", def.required)
    .addPrimaryKeyConstraint("subscriptions_pk", ["subscriber_id", "list_id"])
    .execute();
  await def.createIndex(db, "subscriptions_list", "subscriptions", ["list_id"]);

  // One pending preference change per subscriber; a new request replaces the old one.
  await db.schema
    .createTable("preference_changes")
    .addColumn("subscriber_id", "integer", (col) =>
      col.primaryKey().references("subscribers.id").onDelete("cascade"),
    )
    .$call(
      def.requiredText("token_hash", "active_lists", "inactive_lists", "created_at", "expires_at"),
    )
    .addColumn("used_at", "text")
    .execute();

  await def
    .tenantTable(db, "unsubscribe_feedback")
    .addColumn("subscriber_id", "integer", def.optionalRef("subscribers.id"))
    .addColumn("reason", "text", def.required)
    .addColumn("details", "text")
    .addColumn("created_at", "text", def.required)
    .execute();

  // Every message Herald sends or keeps in the outbox, with what is needed to retry it.
  await db.schema
    .createTable("mail_log")
    .addColumn("id", def.autoIncrementId(db), def.primaryKey)
    .addColumn("tenant_id", "text", def.optionalRef("tenants.id"))
    .$call(def.requiredText("kind", "to_address", "from_address", "subject", "html", "text"))
    .addColumn("headers", "text", def.requiredWithDefault("{}"))
    // pending | sent | outbox | failed
    .addColumn("status", "text", def.required)
    .addColumn("attempts", "integer", def.requiredWithDefault(0))
    .addColumn("error", "text")
    .addColumn("message_id", "text")
    .addColumn("created_at", "text", def.required)
    .addColumn("sent_at", "text")
    .addColumn("next_attempt_at", "text")
    .execute();
  await def.createIndex(db, "mail_log_tenant_created", "mail_log", ["tenant_id", "created_at"]);
  await def.createIndex(db, "mail_log_retry", "mail_log", ["status", "next_attempt_at"]);
}

export async function down(db: def.MigrationDb): Promise<void> {
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
