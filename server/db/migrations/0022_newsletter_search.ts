import { sql } from "kysely";
import { isPostgres } from "../portable";
import * as def from "./columns";

/**
 * Issue 15, part 3: full-text search of published newsletters. `newsletter_search` has a row per
 * published newsletter; its `id` grows with the publication time, so "newest first" is the index's
 * own order. SQLite indexes the words in a contentless FTS5 table keyed by that id (a trigger
 * removes them with the row); PostgreSQL keeps them as tsvectors on the row, with GIN indexes.
 * Newsletters published before this migration are indexed by it.
 */
export async function up(db: def.MigrationDb): Promise<void> {
  const postgres = isPostgres(db);
  await db.schema
    .createTable("newsletter_search")
    .addColumn("id", "bigint", def.primaryKey)
    .addColumn("tenant_id", "text", def.ownedBy("tenants.id"))
    .addColumn("newsletter_id", "text", (col) =>
      col.notNull().unique().references("newsletters.id").onDelete("cascade"),
    )
    .addColumn("published_at", "text", def.required)
    .execute();
  await def.createIndex(db, "newsletter_search_tenant", "newsletter_search", ["tenant_id", "id"]);

  if (postgres) {
    // Stripped vectors (no positions): matching needs only the words, and they stay small.
    await sql`ALTER TABLE newsletter_search
      ADD COLUMN title_words tsvector NOT NULL,
      ADD COLUMN all_words tsvector NOT NULL`.execute(db);
    // fastupdate off: each publish goes straight into the index, instead of a pending list that
    // every search must read (and that misleads the planner) until the next vacuum.
    await sql`CREATE INDEX newsletter_search_title_words ON newsletter_search
      USING gin (title_words) WITH (fastupdate = off)`.execute(db);
    await sql`CREATE INDEX newsletter_search_all_words ON newsletter_search
      USING gin (all_words) WITH (fastupdate = off)`.execute(db);
  } else {
    await sql`CREATE VIRTUAL TABLE newsletter_search_fts USING fts5(
      tenant_key, title, text, content='', contentless_delete=1,
      tokenize='porter unicode61 remove_diacritics 2')`.execute(db);
    await sql`CREATE TRIGGER newsletter_search_ad AFTER DELETE ON newsletter_search BEGIN
      DELETE FROM newsletter_search_fts WHERE rowid = old.id;
    END`.execute(db);
  }

  // Raw SQL: a migration walks every tenant's rows, which the tenant guard would refuse.
  const { rows } = await sql<{
    id: string;
    tenant_id: string;
    title: string;
    excerpt: string;
    content: string;
    published_at: string | null;
    created_at: string;
  }>`SELECT id, tenant_id, title, excerpt, content, published_at, created_at FROM newsletters
     WHERE status = 'published' ORDER BY published_at, id`.execute(db);
  let last = 0;
  for (const row of rows) {
    // The rules of server/newsletters/search.ts (searchRowId, tenantKey) and sanitize.ts (textOfHtml),
    // frozen here as they were when this ran.
    const published = row.published_at ?? row.created_at;
    const id = Math.max(last + 1, Date.parse(published) * 1000);
    last = id;
    const text = `${row.excerpt} ${String(row.content)
      .replace(/<[^>]*>/g, " ")
      .replace(/&nbsp;/g, " ")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, "&")}`.replace(/\s+/g, " ");
    if (postgres) {
      await sql`INSERT INTO newsletter_search (id, tenant_id, newsletter_id, published_at, title_words, all_words)
        VALUES (${id}, ${row.tenant_id}, ${row.id}, ${published},
          strip(to_tsvector('english', ${row.title})),
          strip(to_tsvector('english', ${`${row.title} ${text}`})))`.execute(db);
    } else {
      await sql`INSERT INTO newsletter_search (id, tenant_id, newsletter_id, published_at)
        VALUES (${id}, ${row.tenant_id}, ${row.id}, ${published})`.execute(db);
      const key = `t${Buffer.from(row.tenant_id).toString("hex")}`;
      await sql`INSERT INTO newsletter_search_fts (rowid, tenant_key, title, text)
        VALUES (${id}, ${key}, ${row.title}, ${text})`.execute(db);
    }
  }
}

export async function down(db: def.MigrationDb): Promise<void> {
  if (!isPostgres(db)) await sql`DROP TABLE newsletter_search_fts`.execute(db);
  await db.schema.dropTable("newsletter_search").execute();
}
