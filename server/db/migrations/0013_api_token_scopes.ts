import type { Kysely } from "kysely";

/**
 * Issue 14, part 5: API tokens carry scopes (JSON array) and may expire. Tokens made before this
 * had every right, so they keep all three scopes (staff can revoke and reissue narrower ones);
 * new tokens start from `read`.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("api_tokens")
    .addColumn("scopes", "text", (col) =>
      col.notNull().defaultTo('["read","tenants:write","functions"]'),
    )
    .execute();
  await db.schema.alterTable("api_tokens").addColumn("expires_at", "text").execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("api_tokens").dropColumn("expires_at").execute();
  await db.schema.alterTable("api_tokens").dropColumn("scopes").execute();
}
