import { sql } from "kysely";
import { z } from "zod";
import type { Db } from "../db";
import { isPostgres } from "../db/portable";
import type { TenantScope } from "../scope";
import { textOfHtml } from "./sanitize";

/*
 * Full-text search of a tenant's published newsletters (issue 15, part 3). One interface, two
 * engines: SQLite's FTS5 (porter stemming) and PostgreSQL's full-text search (english stemming,
 * GIN index), both over `newsletter_search`, which holds the text of each published newsletter and
 * is rewritten in the same transaction as every publish, update, unpublish (deletes cascade).
 *
 * The contract, the same on both: every word of the query must appear (stemmed: "reviews" finds
 * "review"); matches in the title come first, then in the excerpt, then in the text only, newest
 * first within each; a snippet of the text with the matched words marked.
 */

export const MAX_QUERY_LENGTH = 200;
const MAX_TERMS = 8;

/** ?q= as typed; too long is cut rather than refused, since it comes from a search box. */
export const searchQuerySchema = z
  .string()
  .catch("")
  .transform((query) => query.trim().slice(0, MAX_QUERY_LENGTH));

/** The words searched for: letters and digits only, so no query can be FTS or tsquery syntax. */
export function searchTerms(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words)].slice(0, MAX_TERMS);
}

/** A piece of a snippet: matched words are `highlighted` (the page wraps them in <mark>). */
export interface SnippetPart {
  text: string;
  highlighted: boolean;
}

export interface SearchHit {
  id: string;
  slug: string;
  title: string;
  excerpt: string;
  date: string;
  readTime: number;
  snippet: SnippetPart[];
}

// The engines mark matches with control characters, which newsletter text never contains.
const START = "\u0002";
const STOP = "\u0003";

/** Splits a marked snippet into parts; nothing from the database is ever rendered as HTML. */
export function snippetParts(marked: string): SnippetPart[] {
  const parts: SnippetPart[] = [];
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the markers are control characters
  for (const piece of marked.split(/(\u0002[^\u0003]*\u0003)/)) {
    if (!piece) continue;
    const highlighted = piece.startsWith(START);
    const text = highlighted ? piece.slice(1, -1) : piece;
    const last = parts.at(-1);
    if (last && last.highlighted === highlighted) last.text += text;
    else parts.push({ text, highlighted });
  }
  return parts;
}

/**
 * Brings the index in step with the newsletter, inside the caller's transaction: its text when it is
 * published, nothing when it is not (a draft, unpublished, or gone).
 */
export async function syncSearchIndex(
  db: Db,
  tenantId: string,
  newsletterId: string,
): Promise<void> {
  await db
    .deleteFrom("newsletter_search")
    .where("tenant_id", "=", tenantId)
    .where("newsletter_id", "=", newsletterId)
    .execute();
  const row = await db
    .selectFrom("newsletters")
    .select(["title", "excerpt", "content", "published_at"])
    .where("tenant_id", "=", tenantId)
    .where("id", "=", newsletterId)
    .where("status", "=", "published")
    .executeTakeFirst();
  if (!row) return;
  await db
    .insertInto("newsletter_search")
    .values({
      tenant_id: tenantId,
      newsletter_id: newsletterId,
      title: row.title,
      excerpt: row.excerpt,
      body: textOfHtml(row.content),
      published_at: row.published_at ?? new Date().toISOString(),
    })
    .execute();
}

interface RankedRow {
  newsletter_id: string;
}

/** The tenant's published newsletters matching `query`, best first, one page at a time. */
export async function searchNewsletters(
  ctx: TenantScope,
  query: string,
  page: { page: number; pageSize: number },
): Promise<{ items: SearchHit[]; total: number }> {
  const terms = searchTerms(query);
  if (terms.length === 0) return { items: [], total: 0 };
  const engine = isPostgres(ctx.db) ? postgres : sqlite;
  const offset = (page.page - 1) * page.pageSize;
  const [ranked, total] = await Promise.all([
    engine.page(ctx, terms, page.pageSize, offset),
    engine.count(ctx, terms),
  ]);
  if (ranked.length === 0) return { items: [], total };
  const ids = ranked.map((row) => row.newsletter_id);
  const [snippets, rows] = await Promise.all([
    engine.snippets(ctx, terms, ids),
    ctx.db
      .selectFrom("newsletters")
      .select(["id", "slug", "title", "excerpt", "published_at", "created_at", "read_time"])
      .where("tenant_id", "=", ctx.tenantId)
      .where("id", "in", ids)
      .where("status", "=", "published")
      .execute(),
  ]);
  const byId = new Map(rows.map((row) => [row.id, row]));
  const items = ids.flatMap((id) => {
    const row = byId.get(id);
    if (!row) return [];
    return [
      {
        id,
        slug: row.slug ?? id,
        title: row.title,
        excerpt: row.excerpt,
        date: row.published_at ?? row.created_at,
        readTime: Number(row.read_time),
        snippet: snippetParts(snippets.get(id) ?? ""),
      },
    ];
  });
  return { items, total };
}

interface Engine {
  page(ctx: TenantScope, terms: string[], limit: number, offset: number): Promise<RankedRow[]>;
  count(ctx: TenantScope, terms: string[]): Promise<number>;
  /** newsletter id → its text's best passage, matches between START and STOP */
  snippets(ctx: TenantScope, terms: string[], ids: string[]): Promise<Map<string, string>>;
}

// Raw SQL is not seen by the tenant guard: every query below names the tenant itself.

/** FTS5: each term a quoted string (never an operator), all of them required. */
const ftsAll = (terms: string[], column?: string) =>
  terms.map((term) => `${column ? `${column} : ` : ""}"${term}"`).join(" AND ");

const sqlite: Engine = {
  async page(ctx, terms, limit, offset) {
    const { rows } = await sql<RankedRow>`
      SELECT s.newsletter_id,
        CASE
          WHEN s.id IN (SELECT rowid FROM newsletter_search_fts
                        WHERE newsletter_search_fts MATCH ${ftsAll(terms, "title")}) THEN 0
          WHEN s.id IN (SELECT rowid FROM newsletter_search_fts
                        WHERE newsletter_search_fts MATCH ${ftsAll(terms, "excerpt")}) THEN 1
          ELSE 2
        END AS tier
      FROM newsletter_search_fts
      JOIN newsletter_search s ON s.id = newsletter_search_fts.rowid
      WHERE newsletter_search_fts MATCH ${ftsAll(terms)} AND s.tenant_id = ${ctx.tenantId}
      ORDER BY tier, s.published_at DESC, s.newsletter_id DESC
      LIMIT ${limit} OFFSET ${offset}`.execute(ctx.db);
    return rows;
  },
  async count(ctx, terms) {
    const { rows } = await sql<{ total: number }>`
      SELECT count(*) AS total FROM newsletter_search_fts
      JOIN newsletter_search s ON s.id = newsletter_search_fts.rowid
      WHERE newsletter_search_fts MATCH ${ftsAll(terms)} AND s.tenant_id = ${ctx.tenantId}`.execute(
      ctx.db,
    );
    return Number(rows[0]?.total ?? 0);
  },
  async snippets(ctx, terms, ids) {
    const { rows } = await sql<{ newsletter_id: string; snippet: string }>`
      SELECT s.newsletter_id,
        snippet(newsletter_search_fts, 2, ${START}, ${STOP}, '…', 32) AS snippet
      FROM newsletter_search_fts
      JOIN newsletter_search s ON s.id = newsletter_search_fts.rowid
      WHERE newsletter_search_fts MATCH ${ftsAll(terms)} AND s.tenant_id = ${ctx.tenantId}
        AND s.newsletter_id IN (${sql.join(ids)})`.execute(ctx.db);
    return new Map(rows.map((row) => [row.newsletter_id, row.snippet]));
  },
};

/** PostgreSQL: the words as one plainto_tsquery (every word required, stemmed, no operators). */
const tsquery = (terms: string[]) => sql`plainto_tsquery('english', ${terms.join(" ")})`;

const postgres: Engine = {
  async page(ctx, terms, limit, offset) {
    const { rows } = await sql<RankedRow>`
      SELECT s.newsletter_id,
        CASE WHEN s.title_tsv @@ q.query THEN 0 WHEN s.excerpt_tsv @@ q.query THEN 1 ELSE 2 END
          AS tier
      FROM newsletter_search s, (SELECT ${tsquery(terms)} AS query) q
      WHERE s.tenant_id = ${ctx.tenantId} AND s.document @@ q.query
      ORDER BY tier, s.published_at DESC, s.newsletter_id DESC
      LIMIT ${limit} OFFSET ${offset}`.execute(ctx.db);
    return rows;
  },
  async count(ctx, terms) {
    const { rows } = await sql<{ total: string }>`
      SELECT count(*) AS total FROM newsletter_search s
      WHERE s.tenant_id = ${ctx.tenantId} AND s.document @@ ${tsquery(terms)}`.execute(ctx.db);
    return Number(rows[0]?.total ?? 0);
  },
  async snippets(ctx, terms, ids) {
    const options = `StartSel=${START}, StopSel=${STOP}, MaxWords=32, MinWords=16, MaxFragments=1, FragmentDelimiter=" … "`;
    const { rows } = await sql<{ newsletter_id: string; snippet: string }>`
      SELECT s.newsletter_id, ts_headline('english', s.body, ${tsquery(terms)}, ${options}) AS snippet
      FROM newsletter_search s
      WHERE s.tenant_id = ${ctx.tenantId} AND s.newsletter_id IN (${sql.join(ids)})`.execute(
      ctx.db,
    );
    return new Map(rows.map((row) => [row.newsletter_id, row.snippet]));
  },
};
