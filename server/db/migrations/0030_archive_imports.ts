import * as def from "./columns";

/**
 * Issue 33, target 3 (archives): newsletters coming from Ghost and Substack.
 *
 * - `archive_imports`: an uploaded archive as a job. The archive is read and checked at upload;
 *   the posts to write are kept here in one portable shape (JSON), with what was refused and
 *   why, then written by the import worker one post per transaction, each with its progress.
 * - `newsletters.author_name`: the byline an imported post keeps when no staff member of Herald
 *   wrote it (Ghost's author, Substack's publication); a staff member's own byline wins.
 */
export async function up(db: def.MigrationDb): Promise<void> {
  await def
    .tenantTable(db, "archive_imports")
    // ghost | substack
    .addColumn("source", "text", def.required)
    .addColumn("file_name", "text", def.required)
    // the posts to write, as JSON (ArchivePost[]); emptied once the import ends
    .addColumn("posts", "text", def.required)
    // queued | running | done | failed
    .addColumn("status", "text", def.required)
    .addColumn("total_posts", "integer", def.requiredWithDefault(0))
    // posts handled so far (written or skipped): a resumed job goes on from the next one
    .addColumn("done_posts", "integer", def.requiredWithDefault(0))
    .addColumn("imported", "integer", def.requiredWithDefault(0))
    .addColumn("skipped_count", "integer", def.requiredWithDefault(0))
    // JSON: the first skipped items with their reason, and the image warnings
    .addColumn("skipped", "text", def.requiredWithDefault("[]"))
    .addColumn("warnings", "text", def.requiredWithDefault("[]"))
    // JSON: each image URL already copied → its /uploads/… URL (one fetch per URL, across resumes)
    .addColumn("images", "text", def.requiredWithDefault("{}"))
    .addColumn("error", "text")
    .addColumn("created_by", "text", def.required)
    .addColumn("created_at", "text", def.required)
    .addColumn("started_at", "text")
    .addColumn("finished_at", "text")
    .addColumn("claimed_by", "text")
    .addColumn("heartbeat_at", "text")
    .execute();
  await def.createIndex(db, "archive_imports_tenant", "archive_imports", ["tenant_id", "id"]);
  await def.createIndex(db, "archive_imports_status", "archive_imports", ["status"]);
  await db.schema.alterTable("newsletters").addColumn("author_name", "text").execute();
}

export async function down(db: def.MigrationDb): Promise<void> {
  await db.schema.alterTable("newsletters").dropColumn("author_name").execute();
  await db.schema.dropTable("archive_imports").execute();
}
