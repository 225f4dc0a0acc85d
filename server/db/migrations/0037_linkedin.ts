import * as def from "./columns";

/**
 * Issue 36, target 2: publishing to LinkedIn (docs/decisions/046-linkedin.md).
 *
 * linkedin_connections: one per tenant, the member or organization page Herald posts as, with
 * the OAuth tokens sealed together in `tokens` (server/secret-box.ts, AAD on the tenant's row).
 *
 * linkedin_posts: one per newsletter, the post's state machine (scheduled → uploading → posted /
 * failed) and what LinkedIn answered as soon as it answered: the image URN, the moment the post
 * was asked for (`post_started_at`, the idempotency marker read after a crash) and the post URN.
 */
export async function up(db: def.MigrationDb): Promise<void> {
  await db.schema
    .createTable("linkedin_connections")
    .addColumn("tenant_id", "text", (col) =>
      col.primaryKey().references("tenants.id").onDelete("cascade"),
    )
    .$call(
      def.requiredText(
        "author_kind",
        "author_urn",
        "author_name",
        "scope",
        "tokens",
        "access_expires_at",
        "connected_by",
        "connected_at",
      ),
    )
    .addColumn("refresh_expires_at", "text")
    .addColumn("refreshed_at", "text")
    .addColumn("problem", "text")
    .execute();
  await def
    .tenantTable(db, "linkedin_posts")
    .$call(def.requiredText("newsletter_id", "state", "due_at", "requested_by", "created_at"))
    .addColumn("attempts", "integer", def.requiredWithDefault(0))
    .addColumn("image_urn", "text")
    .addColumn("post_started_at", "text")
    .addColumn("post_urn", "text")
    .addColumn("posted_at", "text")
    .addColumn("error", "text")
    .addColumn("claimed_by", "text")
    .addColumn("claimed_at", "text")
    .addColumn("updated_at", "text", def.required)
    .execute();
  await db.schema
    .createIndex("linkedin_posts_newsletter")
    .unique()
    .on("linkedin_posts")
    .columns(["tenant_id", "newsletter_id"])
    .execute();
  await def.createIndex(db, "linkedin_posts_due", "linkedin_posts", ["state", "due_at"]);
}

export async function down(db: def.MigrationDb): Promise<void> {
  await db.schema.dropTable("linkedin_posts").execute();
  await db.schema.dropTable("linkedin_connections").execute();
}
