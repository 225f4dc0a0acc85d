import type { Kysely } from "kysely";
import { autoIncrementId } from "../portable";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("users")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("email", "text", (col) => col.notNull().unique())
    .addColumn("password_hash", "text", (col) => col.notNull())
    .addColumn("role", "text", (col) => col.notNull())
    // JSON map of product key → true (SPEC §3 User permissions)
    .addColumn("products", "text", (col) => col.notNull().defaultTo("{}"))
    .addColumn("created_at", "text", (col) => col.notNull())
    .addColumn("updated_at", "text", (col) => col.notNull())
    .execute();

  await db.schema
    .createTable("sessions")
    .addColumn("token_hash", "text", (col) => col.primaryKey())
    .addColumn("user_id", "text", (col) => col.notNull().references("users.id").onDelete("cascade"))
    .addColumn("created_at", "text", (col) => col.notNull())
    .addColumn("expires_at", "text", (col) => col.notNull())
    .execute();
  await db.schema.createIndex("sessions_user").on("sessions").column("user_id").execute();

  // Small installation-wide values: the one-time setup token's hash, and the like.
  await db.schema
    .createTable("settings")
    .addColumn("key", "text", (col) => col.primaryKey())
    .addColumn("value", "text", (col) => col.notNull())
    .addColumn("updated_at", "text", (col) => col.notNull())
    .execute();

  await db.schema
    .createTable("newsletters")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("tenant_id", "text", (col) =>
      col.notNull().references("tenants.id").onDelete("cascade"),
    )
    .addColumn("title", "text", (col) => col.notNull())
    .addColumn("excerpt", "text", (col) => col.notNull())
    .addColumn("content", "text", (col) => col.notNull())
    .addColumn("read_time", "integer", (col) => col.notNull())
    .addColumn("status", "text", (col) => col.notNull())
    .addColumn("views", "integer", (col) => col.notNull().defaultTo(0))
    .addColumn("comments", "integer", (col) => col.notNull().defaultTo(0))
    .addColumn("author_id", "text", (col) => col.references("users.id").onDelete("set null"))
    .addColumn("created_at", "text", (col) => col.notNull())
    .addColumn("updated_at", "text", (col) => col.notNull())
    .addColumn("published_at", "text")
    .addColumn("sent_at", "text")
    .addColumn("campaign_id", "text")
    .addColumn("send_status", "text")
    .addColumn("mailerlite_campaign_id", "text")
    .addColumn("mailerlite_campaign_status", "text")
    .execute();
  await db.schema
    .createIndex("newsletters_tenant_status_published")
    .on("newsletters")
    .columns(["tenant_id", "status", "published_at"])
    .execute();

  await db.schema
    .createTable("comments")
    .addColumn("id", autoIncrementId(db), (col) => col.primaryKey())
    .addColumn("newsletter_id", "text", (col) =>
      col.notNull().references("newsletters.id").onDelete("cascade"),
    )
    .addColumn("tenant_id", "text", (col) =>
      col.notNull().references("tenants.id").onDelete("cascade"),
    )
    .addColumn("text", "text", (col) => col.notNull())
    .addColumn("author", "text", (col) => col.notNull().defaultTo("Anonymous"))
    .addColumn("hidden", "integer", (col) => col.notNull().defaultTo(0))
    .addColumn("created_at", "text", (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex("comments_newsletter_created")
    .on("comments")
    .columns(["newsletter_id", "created_at"])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ["comments", "newsletters", "settings", "sessions", "users"]) {
    await db.schema.dropTable(table).execute();
  }
}
