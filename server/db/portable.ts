import { type Kysely, PostgresAdapter, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: works on any schema
type AnyDb = Kysely<any>;

export function isPostgres(db: AnyDb): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** The column type of an auto-incrementing integer key on either dialect. */
export function autoIncrementId(db: AnyDb) {
  return isPostgres(db) ? sql`serial` : sql`integer`;
}

/**
 * A LIKE pattern that finds `text` anywhere, lower-cased, its own `%`, `_` and `\` escaped: for
 * `lower(column) like ${pattern} escape '\\'`, the same on both databases.
 */
export const likePattern = (text: string) =>
  `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
