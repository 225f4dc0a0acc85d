import { sql } from "kysely";
import { isPostgres } from "../portable";
import * as def from "./columns";

/**
 * Issue 15, part 3: full-text search of published newsletters. `newsletter_search` holds the
 * searchable text of each published newsletter (HTML stripped) on both dialects; SQLite indexes it
 * with an FTS5 table kept in step by triggers (an "external content" table), PostgreSQL with
 * weighted tsvector columns it generates itself and a GIN index.
 */
export async function up(db: def.MigrationDb): Promise<void> {
  await db.schema
    .createTable("newsletter_search")
    .addColumn("id", def.autoIncrementId(db), def.primaryKey)
    .addColumn("tenant_id", "text", def.ownedBy("tenants.id"))
    .addColumn("newsletter_id", "text", (col) =>
      col.notNull().unique().references("newsletters.id").onDelete("cascade"),
    )
    .addColumn("title", "text", def.required)
    .addColumn("excerpt", "text", def.required)
    .addColumn("body", "text", def.required)
    .addColumn("published_at", "text", def.required)
    .execute();
  await def.createIndex(db, "newsletter_search_tenant", "newsletter_search", [
    "tenant_id",
    "published_at",
  ]);

  if (isPostgres(db)) {
    await sql`ALTER TABLE newsletter_search
      ADD COLUMN title_tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', title)) STORED,
      ADD COLUMN excerpt_tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', excerpt)) STORED,
      ADD COLUMN document tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', title), 'A') ||
        setweight(to_tsvector('english', excerpt), 'B') ||
        setweight(to_tsvector('english', body), 'C')) STORED`.execute(db);
    await sql`CREATE INDEX newsletter_search_document ON newsletter_search USING gin (document)`.execute(
      db,
    );
  } else {
    await sql`CREATE VIRTUAL TABLE newsletter_search_fts USING fts5(
      title, excerpt, body, content='newsletter_search', content_rowid='id',
      tokenize='porter unicode61 remove_diacritics 2')`.execute(db);
    await sql`CREATE TRIGGER newsletter_search_ai AFTER INSERT ON newsletter_search BEGIN
      INSERT INTO newsletter_search_fts(rowid, title, excerpt, body)
        VALUES (new.id, new.title, new.excerpt, new.body);
    END`.execute(db);
    await sql`CREATE TRIGGER newsletter_search_ad AFTER DELETE ON newsletter_search BEGIN
      INSERT INTO newsletter_search_fts(newsletter_search_fts, rowid, title, excerpt, body)
        VALUES ('delete', old.id, old.title, old.excerpt, old.body);
    END`.execute(db);
    await sql`CREATE TRIGGER newsletter_search_au AFTER UPDATE ON newsletter_search BEGIN
      INSERT INTO newsletter_search_fts(newsletter_search_fts, rowid, title, excerpt, body)
        VALUES ('delete', old.id, old.title, old.excerpt, old.body);
      INSERT INTO newsletter_search_fts(rowid, title, excerpt, body)
        VALUES (new.id, new.title, new.excerpt, new.body);
    END`.execute(db);
  }

  // The newsletters published before search: raw SQL, as a migration walks every tenant's rows.
  const { rows } = await sql<{
    id: string;
    tenant_id: string;
    title: string;
    excerpt: string;
    content: string;
    published_at: string;
  }>`SELECT id, tenant_id, title, excerpt, content, published_at FROM newsletters
     WHERE status = 'published'`.execute(db);
  for (const row of rows) {
    // The text rule of server/newsletters/sanitize.ts (textOfHtml), frozen here as it was.
    const body = String(row.content)
      .replace(/<[^>]*>/g, " ")
      .replace(/&nbsp;/g, " ")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&quot;/g, '"')
      .replace(/&#(\d+);/g, (_, code) => String.fromCodePoint(Number(code)))
      .replace(/&amp;/g, "&")
      .replace(/\s+/g, " ")
      .trim();
    await sql`INSERT INTO newsletter_search (tenant_id, newsletter_id, title, excerpt, body, published_at)
      VALUES (${row.tenant_id}, ${row.id}, ${row.title}, ${row.excerpt}, ${body},
        ${row.published_at ?? new Date().toISOString()})`.execute(db);
  }
}

export async function down(db: def.MigrationDb): Promise<void> {
  if (!isPostgres(db)) await sql`DROP TABLE newsletter_search_fts`.execute(db);
  await db.schema.dropTable("newsletter_search").execute();
}
