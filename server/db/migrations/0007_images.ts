import * as def from "./columns";

/**
 * Uploaded images with their size and their web variants (issue 12): mail gives every image its
 * width and height, and the newsletter page a srcset of WebP and AVIF.
 */
export async function up(db: def.MigrationDb): Promise<void> {
  await db.schema
    .createTable("images")
    // the store key of the email-safe file, e.g. main/{32 hex}.jpg
    .addColumn("key", "text", def.primaryKey)
    .$call(def.requiredText("tenant_id", "content_type"))
    .addColumn("width", "integer", def.required)
    .addColumn("height", "integer", def.required)
    .addColumn("bytes", "integer", def.required)
    // JSON array of { key, format: "avif" | "webp", width }
    .$call(def.requiredText("variants", "created_at"))
    .execute();
}

export async function down(db: def.MigrationDb): Promise<void> {
  await db.schema.dropTable("images").execute();
}
