import * as def from "./columns";

/**
 * Issue 15, parts 2, 4 and 5: tags (a tenant's `tags`, linked to newsletters in order by
 * `newsletter_tags`), an optional cover image with its alt text, scheduled publishing (the UTC time,
 * and whether the scheduled publication also sends the campaign), and the key that signs a draft's
 * shareable preview links (a new key revokes every link given out before).
 */
export async function up(db: def.MigrationDb): Promise<void> {
  await db.schema
    .createTable("tags")
    .addColumn("tenant_id", "text", def.ownedBy("tenants.id"))
    .addColumn("slug", "text", def.required)
    .addColumn("name", "text", def.required)
    .addColumn("created_at", "text", def.required)
    .addPrimaryKeyConstraint("tags_pk", ["tenant_id", "slug"])
    .execute();
  await db.schema
    .createTable("newsletter_tags")
    .addColumn("tenant_id", "text", def.ownedBy("tenants.id"))
    .addColumn("newsletter_id", "text", def.ownedBy("newsletters.id"))
    .addColumn("tag_slug", "text", def.required)
    .addColumn("position", "integer", def.required)
    .addPrimaryKeyConstraint("newsletter_tags_pk", ["tenant_id", "newsletter_id", "tag_slug"])
    .addForeignKeyConstraint(
      "newsletter_tags_tag_fk",
      ["tenant_id", "tag_slug"],
      "tags",
      ["tenant_id", "slug"],
      (fk) => fk.onDelete("cascade"),
    )
    .execute();
  await def.createIndex(db, "newsletter_tags_by_tag", "newsletter_tags", ["tenant_id", "tag_slug"]);

  for (const column of ["cover_image", "cover_alt", "scheduled_at", "preview_key"]) {
    await db.schema.alterTable("newsletters").addColumn(column, "text").execute();
  }
  await db.schema
    .alterTable("newsletters")
    .addColumn("scheduled_send", "integer", def.requiredWithDefault(0))
    .execute();
  // The scheduler looks across tenants, every round of the sending worker, for due drafts and for
  // published newsletters still to be sent: both found through an index, not a table scan.
  await def.createIndex(db, "newsletters_scheduled", "newsletters", ["scheduled_at"]);
  await def.createIndex(db, "newsletters_scheduled_send", "newsletters", ["scheduled_send"]);
}

export async function down(db: def.MigrationDb): Promise<void> {
  await db.schema.dropIndex("newsletters_scheduled_send").execute();
  await db.schema.dropIndex("newsletters_scheduled").execute();
  for (const column of [
    "scheduled_send",
    "preview_key",
    "scheduled_at",
    "cover_alt",
    "cover_image",
  ]) {
    await db.schema.alterTable("newsletters").dropColumn(column).execute();
  }
  await db.schema.dropTable("newsletter_tags").execute();
  await db.schema.dropTable("tags").execute();
}
