import * as def from "./columns";

export async function up(db: def.MigrationDb): Promise<void> {
  await db.schema
    .createTable("users")
    .addColumn("id", "text", def.primaryKey)
    .addColumn("email", "text", (col) => col.notNull().unique())
    .$call(def.requiredText("password_hash", "role"))
    // JSON map of product key → true (SPEC §3 User permissions)
    .addColumn("products", "text", def.requiredWithDefault("{}"))
    .$call(def.requiredText("created_at", "updated_at"))
    .execute();

  await db.schema
    .createTable("sessions")
    .addColumn("token_hash", "text", def.primaryKey)
    .addColumn("user_id", "text", def.ownedBy("users.id"))
    .$call(def.requiredText("created_at", "expires_at"))
    .execute();
  await def.createIndex(db, "sessions_user", "sessions", ["user_id"]);

  // Small installation-wide values: the one-time setup token's hash, and the like.
  await db.schema
    .createTable("settings")
    .addColumn("key", "text", def.primaryKey)
    .$call(def.requiredText("value", "updated_at"))
    .execute();

  await def
    .tenantTable(db, "newsletters", "text")
    .$call(def.requiredText("title", "excerpt", "content"))
    .addColumn("read_time", "integer", def.required)
    .addColumn("status", "text", def.required)
    .addColumn("views", "integer", def.requiredWithDefault(0))
    .addColumn("comments", "integer", def.requiredWithDefault(0))
    .addColumn("author_id", "text", def.optionalRef("users.id"))
    .$call(def.requiredText("created_at", "updated_at"))
    .addColumn("published_at", "text")
    .addColumn("sent_at", "text")
    .addColumn("campaign_id", "text")
    .addColumn("send_status", "text")
    .addColumn("mailerlite_campaign_id", "text")
    .addColumn("mailerlite_campaign_status", "text")
    .execute();
  await def.createIndex(db, "newsletters_tenant_status_published", "newsletters", [
    "tenant_id",
    "status",
    "published_at",
  ]);

  await db.schema
    .createTable("comments")
    .addColumn("id", def.autoIncrementId(db), def.primaryKey)
    .addColumn("newsletter_id", "text", def.ownedBy("newsletters.id"))
    .addColumn("tenant_id", "text", def.ownedBy("tenants.id"))
    .addColumn("text", "text", def.required)
    .addColumn("author", "text", def.requiredWithDefault("Anonymous"))
    .addColumn("hidden", "integer", def.requiredWithDefault(0))
    .addColumn("created_at", "text", def.required)
    .execute();
  await def.createIndex(db, "comments_newsletter_created", "comments", [
    "newsletter_id",
    "created_at",
  ]);
}

export async function down(db: def.MigrationDb): Promise<void> {
  for (const table of ["comments", "newsletters", "settings", "sessions", "users"]) {
    await db.schema.dropTable(table).execute();
  }
}
