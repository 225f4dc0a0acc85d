import type * as def from "./columns";

/**
 * Issue 14, part 5: API tokens carry scopes (JSON array) and may expire. Tokens made before this
 * had every right, so they keep all three scopes (staff can revoke and reissue narrower ones);
 * new tokens start from `read`.
 */
export async function up(db: def.MigrationDb): Promise<void> {
  await db.schema
    .alterTable("api_tokens")
    .addColumn("scopes", "text", (col) =>
      col.notNull().defaultTo('["read","tenants:write","functions"]'),
    )
    .execute();
  await db.schema.alterTable("api_tokens").addColumn("expires_at", "text").execute();
}

export async function down(db: def.MigrationDb): Promise<void> {
  await db.schema.alterTable("api_tokens").dropColumn("expires_at").execute();
  await db.schema.alterTable("api_tokens").dropColumn("scopes").execute();
}
