import type { Kysely } from "kysely";

/**
 * newsletters.render_version rises whenever what the public page shows changes without the
 * newsletter itself changing (a comment added, hidden, shown or deleted): the page cache's key.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("newsletters")
    .addColumn("render_version", "integer", (col) => col.notNull().defaultTo(0))
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("newsletters").dropColumn("render_version").execute();
}
