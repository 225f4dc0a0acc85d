import type { Kysely } from "kysely";

/**
 * Uploaded images with their size and their web variants (issue 12): mail gives every image its
 * width and height, and the newsletter page a srcset of WebP and AVIF.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("images")
    // the store key of the email-safe file, e.g. main/{32 hex}.jpg
    .addColumn("key", "text", (col) => col.primaryKey())
    .addColumn("tenant_id", "text", (col) => col.notNull())
    .addColumn("content_type", "text", (col) => col.notNull())
    .addColumn("width", "integer", (col) => col.notNull())
    .addColumn("height", "integer", (col) => col.notNull())
    .addColumn("bytes", "integer", (col) => col.notNull())
    // JSON array of { key, format: "avif" | "webp", width }
    .addColumn("variants", "text", (col) => col.notNull())
    .addColumn("created_at", "text", (col) => col.notNull())
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("images").execute();
}
