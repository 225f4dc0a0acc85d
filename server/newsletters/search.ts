import { sql } from "kysely";
import { z } from "zod";
import type { Db } from "../db";
import { isPostgres } from "../db/portable";
import { crossTenant, tenantDb } from "../db/tenant-guard";
import type { TenantScope } from "../scope";
import type { IssueSummary } from "./archive";
import { textOfHtml } from "./sanitize";

/*
 * Full-text search of a tenant's published newsletters (issue 15, part 3). One interface, two
 * engines: SQLite's FTS5 (porter stemming) and PostgreSQL's full-text search (english stemming, GIN
 * indexes), over `newsletter_search`, which has a row per published newsletter and is rewritten in
 * the same transaction as every publish, update and unpublish (a delete cascades).
 *
 * The contract, the same on both: every word of the query must appear in the title, excerpt or
 * text (stemmed: "reviews" finds "review"; common words such as "the" are ignored); newsletters
 * with every word in their title come first, then the rest, newest first within each; each result
 * has a passage of its text with the matched words marked. Both engines answer from their indexes
 * alone, in the index's own order (the row id grows with the publication time): a common word in
 * 10,000 newsletters costs about what a rare one does (bench/search.ts).
 */

export const MAX_QUERY_LENGTH = 200;
const MAX_TERMS = 8;
/**
 * Matches are counted up to here ("more than 1,000 results"): an exact count of every match of a
 * common word would cost more than the search itself, and nobody reads page 101.
 */
export const MAX_COUNTED = 1_000;

/** ?q= as typed; too long is cut rather than refused, since it comes from a search box. */
export const searchQuerySchema = z
  .string()
  .catch("")
  .transform((query) => query.trim().slice(0, MAX_QUERY_LENGTH));

// Words too common to search by (PostgreSQL's english configuration drops them itself).
const STOP_WORDS = new Set(
  "a an and are as at be but by for from has have i in is it its of on or that the this to was were will with".split(
    " ",
  ),
);

/** The words searched for: letters and digits only, so no query can be FTS or tsquery syntax. */
export function searchTerms(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.filter((word) => !STOP_WORDS.has(word)))].slice(0, MAX_TERMS);
}

/** A piece of a snippet: matched words are `highlighted` (the page wraps them in <mark>). */
export interface SnippetPart {
  text: string;
  highlighted: boolean;
}

/** A newsletter found: as the archive lists it (without tags and cover), with its snippet. */
export interface SearchHit extends Omit<IssueSummary, "tags" | "cover"> {
  snippet: SnippetPart[];
}

/** A word's root for highlighting: lower case, a plural or -ing/-ed ending taken off. */
function root(word: string): string {
  const lower = word.toLowerCase();
  const cut = /(?:ings|ing|edly|ed|es|s|ly)$/.exec(lower);
  return cut && lower.length - cut[0].length >= 3 ? lower.slice(0, -cut[0].length) : lower;
}

/**
 * One test for "is this word a form of a searched word": it starts with a term's root (roots of 4
 * letters or more), or is the root with a common ending. Terms are letters and digits only.
 */
function matcher(terms: string[]): RegExp {
  const alternatives = [...new Set(terms.map(root))].map((term) =>
    term.length >= 4 ? term : `${term}(?:s|es|ed|ing)?(?![\\p{L}\\p{N}])`,
  );
  return new RegExp(`^[^\\p{L}\\p{N}]*(?:${alternatives.join("|")})`, "iu");
}

const SNIPPET_WORDS = 30;

/**
 * The passage of `text` (about 30 words) with the most matched words, the matches marked. Made
 * here, not by the engines, so both give the same passage, and so that nothing from the database
 * is ever rendered as HTML: the page puts each part in a text node or a <mark>.
 */
export function makeSnippet(text: string, terms: string[]): SnippetPart[] {
  if (terms.length === 0) return text ? [{ text, highlighted: false }] : [];
  const isMatch = matcher(terms);
  const tokens = text.split(/\s+/).filter(Boolean);
  const matches = tokens.map((token) => isMatch.test(token));
  let best = 0;
  let bestCount = -1;
  let count = 0;
  for (let i = 0; i < tokens.length; i++) {
    if (matches[i]) count++;
    if (i >= SNIPPET_WORDS && matches[i - SNIPPET_WORDS]) count--;
    const start = Math.max(0, i - SNIPPET_WORDS + 1);
    if (count > bestCount) {
      bestCount = count;
      best = start;
    }
  }
  // Start a little before the first match, so it does not open the passage cold.
  const firstMatch = matches.indexOf(true, best);
  const start = firstMatch > best + 3 ? Math.max(best, firstMatch - 3) : best;
  const end = Math.min(tokens.length, start + SNIPPET_WORDS);
  const parts: SnippetPart[] = [];
  const push = (piece: string, highlighted: boolean) => {
    const last = parts.at(-1);
    if (last && last.highlighted === highlighted) last.text += piece;
    else parts.push({ text: piece, highlighted });
  };
  if (start > 0) push("… ", false);
  for (let i = start; i < end; i++) {
    if (i > start) push(" ", false);
    push(tokens[i] ?? "", Boolean(matches[i]));
  }
  if (end < tokens.length) push(" …", false);
  return parts;
}

/** What the index holds of a newsletter: its title, and the excerpt and text as plain words. */
function searchableText(row: { excerpt: string; content: string }): string {
  return `${row.excerpt} ${textOfHtml(row.content)}`;
}

/**
 * Row ids grow with publication time (microseconds), so the index's order is newest last. The id
 * is the table's key, shared by every tenant: two tenants' newsletters published in the same
 * millisecond (a tenant imported beside its original, issue 33) must not be given the same one.
 */
async function searchRowId(db: Db, publishedAt: string): Promise<number> {
  const base = Date.parse(publishedAt) * 1000;
  // Across tenants on purpose: the key is unique in the whole table.
  const taken = await crossTenant(db)
    .selectFrom("newsletter_search")
    .select((eb) => eb.fn.max("id").as("id"))
    .where("id", ">=", base)
    .where("id", "<", base + 1000)
    .executeTakeFirst();
  return taken?.id === null || taken?.id === undefined ? base : Number(taken.id) + 1;
}

/** The tenant as one FTS5 token (letters and digits only), to filter inside the index. */
const tenantKey = (tenantId: string) => `t${Buffer.from(tenantId).toString("hex")}`;

/**
 * Brings the index in step with the newsletter, inside the caller's transaction: its words when
 * it is published, nothing when it is not (a draft, unpublished, or gone).
 */
export async function syncSearchIndex(
  root: Db,
  tenantId: string,
  newsletterId: string,
): Promise<void> {
  const db = tenantDb(root, tenantId);
  // Deleting the row removes its words too (a trigger on SQLite; the same row on PostgreSQL).
  await db.deleteFrom("newsletter_search").where("newsletter_id", "=", newsletterId).execute();
  const row = await db
    .selectFrom("newsletters")
    .select(["title", "excerpt", "content", "published_at", "created_at"])
    .where("id", "=", newsletterId)
    .where("status", "=", "published")
    .executeTakeFirst();
  if (!row) return;
  const publishedAt = row.published_at ?? row.created_at;
  const id = await searchRowId(db, publishedAt);
  const text = searchableText(row);
  // PostgreSQL keeps the words in the row (GIN indexes); SQLite in its FTS5 table.
  const words = isPostgres(db)
    ? {
        title_words: sql`strip(to_tsvector('english', ${row.title}))`,
        all_words: sql`strip(to_tsvector('english', ${`${row.title} ${text}`}))`,
      }
    : {};
  await db
    .insertInto("newsletter_search")
    .values({
      id,
      tenant_id: tenantId,
      newsletter_id: newsletterId,
      published_at: publishedAt,
      ...(words as object),
    })
    .execute();
  if (isPostgres(db)) return;
  // newsletter_search_fts has no tenant_id: the tenant is a token in it (tenantKey).
  await sql`INSERT INTO newsletter_search_fts (rowid, tenant_key, title, text)
    VALUES (${id}, ${tenantKey(tenantId)}, ${row.title}, ${text})`.execute(db);
}

/** The tenant's published newsletters matching `query`: title matches first, newest first. */
export async function searchNewsletters(
  ctx: TenantScope,
  query: string,
  page: { page: number; pageSize: number },
): Promise<{ items: SearchHit[]; total: number; more: boolean }> {
  const terms = searchTerms(query);
  if (terms.length === 0) return { items: [], total: 0, more: false };
  const db = tenantDb(ctx.db, ctx.tenantId);
  const engine = isPostgres(db) ? postgres(db, terms) : sqlite(db, ctx.tenantId, terms);
  const idsOf = async (group: Exclude<Group, "all">, limit: number, offset: number) =>
    limit > 0 ? (await engine.ids(group, limit, offset)).map((row) => Number(row.id)) : [];
  const counts = async () => {
    const [row] = await engine.counts();
    return { all: Number(row?.all_count ?? 0), inTitle: Number(row?.title_count ?? 0) };
  };

  // The page spans the title matches, then the rest. The first page (nearly every search) asks for
  // both at once, beside the counts; later pages need the count of title matches first.
  const offset = (page.page - 1) * page.pageSize;
  if (offset >= MAX_COUNTED) return { items: [], total: (await counts()).all, more: false };
  const first = offset === 0;
  const [{ all, inTitle }, firstTitles, firstRest] = await Promise.all([
    counts(),
    first ? idsOf("title", page.pageSize, 0) : null,
    first ? idsOf("rest", page.pageSize, 0) : null,
  ]);
  const total = Math.min(all, MAX_COUNTED);
  const more = all > MAX_COUNTED;
  const fromTitle = Math.max(0, Math.min(page.pageSize, inTitle - offset));
  const ids =
    firstTitles && firstRest
      ? [...firstTitles, ...firstRest].slice(0, page.pageSize)
      : [
          ...(await idsOf("title", fromTitle, offset)),
          ...(await idsOf("rest", page.pageSize - fromTitle, Math.max(0, offset - inTitle))),
        ];
  if (ids.length === 0) return { items: [], total, more };

  const rows = await db
    .selectFrom("newsletter_search")
    .innerJoin("newsletters", "newsletters.id", "newsletter_search.newsletter_id")
    .select([
      "newsletter_search.id as searchId",
      "newsletters.id",
      "newsletters.slug",
      "newsletters.title",
      "newsletters.excerpt",
      "newsletters.content",
      "newsletters.published_at",
      "newsletters.created_at",
      "newsletters.read_time",
    ])
    .where("newsletter_search.id", "in", ids)
    .where("newsletters.status", "=", "published")
    .execute();
  const bySearchId = new Map(rows.map((row) => [Number(row.searchId), row]));
  const items = ids.flatMap((id) => {
    const row = bySearchId.get(id);
    if (!row) return [];
    return [
      {
        id: row.id,
        slug: row.slug ?? row.id,
        title: row.title,
        excerpt: row.excerpt,
        date: row.published_at ?? row.created_at,
        readTime: Number(row.read_time),
        snippet: makeSnippet(textOfHtml(row.content), terms),
      },
    ];
  });
  return { items, total, more };
}

/** "all" matches; "title": every word in the title; "rest": all but those. */
type Group = "all" | "title" | "rest";

interface Engine {
  /** matches, and matches with every word in the title, each counted up to MAX_COUNTED + 1 */
  counts(): Promise<{ all_count: number | string | null; title_count: number | string | null }[]>;
  ids(group: Group, limit: number, offset: number): Promise<{ id: number }[]>;
}

/**
 * FTS5: the tenant's token, and each word as a quoted string (never an operator) in the title or
 * text; "title" has every word in the title, "rest" the others. Raw SQL on the FTS5 table, which
 * has no tenant_id (the guards pass it): the tenant's token in every MATCH keeps to the tenant.
 */
function sqlite(db: Db, tenantId: string, terms: string[]): Engine {
  const quoted = terms.map((term) => `"${term}"`);
  const everyWord = quoted.map((term) => `{title text} : ${term}`).join(" AND ");
  const everyWordInTitle = quoted.map((term) => `title : ${term}`).join(" AND ");
  const tenant = `tenant_key : "${tenantKey(tenantId)}"`;
  const match = (group: Group) =>
    group === "all"
      ? `${tenant} AND ${everyWord}`
      : group === "title"
        ? `${tenant} AND ${everyWordInTitle}`
        : `(${tenant} AND ${everyWord}) NOT (${everyWordInTitle})`;
  const capped = (group: Group) =>
    sql`(SELECT count(*) FROM (SELECT 1 FROM newsletter_search_fts
      WHERE newsletter_search_fts MATCH ${match(group)} LIMIT ${MAX_COUNTED + 1}))`;
  return {
    counts: async () =>
      (
        await sql<{ all_count: number; title_count: number }>`SELECT ${capped("all")} AS all_count,
        ${capped("title")} AS title_count`.execute(db)
      ).rows,
    ids: async (group, limit, offset) =>
      (
        await sql<{ id: number }>`SELECT rowid AS id FROM newsletter_search_fts
        WHERE newsletter_search_fts MATCH ${match(group)}
        ORDER BY rowid DESC LIMIT ${limit} OFFSET ${offset}`.execute(db)
      ).rows,
  };
}

/**
 * PostgreSQL: the words as one plainto_tsquery (every word required, stemmed, no operators), on
 * `newsletter_search` through the database bound to the tenant (it adds the tenant's condition).
 */
function postgres(db: Db, terms: string[]): Engine {
  const query = sql`plainto_tsquery('english', ${terms.join(" ")})`;
  const matches = (group: Group) =>
    group === "all"
      ? sql<boolean>`all_words @@ ${query}`
      : group === "title"
        ? sql<boolean>`title_words @@ ${query}`
        : sql<boolean>`all_words @@ ${query} AND NOT (title_words @@ ${query})`;
  const capped = (group: Group) =>
    db
      .selectFrom(
        db
          .selectFrom("newsletter_search")
          .select(sql`1`.as("one"))
          .where(matches(group))
          .limit(MAX_COUNTED + 1)
          .as("found"),
      )
      .select((eb) => eb.fn.countAll<string>().as("n"));
  return {
    counts: () =>
      db.selectNoFrom([capped("all").as("all_count"), capped("title").as("title_count")]).execute(),
    ids: (group, limit, offset) =>
      db
        .selectFrom("newsletter_search")
        .select("id")
        .where(matches(group))
        .orderBy("id", "desc")
        .limit(limit)
        .offset(offset)
        .execute(),
  };
}
