import type { Kysely } from "kysely";

/**
 * Issue 14, part 7: a provider's webhook is bound to a tenant by its URL and signed with that
 * tenant's own secret (webhook_secrets; never part of the tenant's config, API or history), and
 * each event is applied once (webhook_events remembers the ids it has seen).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("webhook_secrets")
    .addColumn("tenant_id", "text", (col) =>
      col.notNull().references("tenants.id").onDelete("cascade"),
    )
    .addColumn("provider", "text", (col) => col.notNull())
    .addColumn("secret", "text", (col) => col.notNull())
    .addColumn("created_by", "text", (col) => col.notNull())
    .addColumn("created_at", "text", (col) => col.notNull())
    .addPrimaryKeyConstraint("webhook_secrets_pk", ["tenant_id", "provider"])
    .execute();
  await db.schema
    .createTable("webhook_events")
    .addColumn("tenant_id", "text", (col) =>
      col.notNull().references("tenants.id").onDelete("cascade"),
    )
    .addColumn("provider", "text", (col) => col.notNull())
    .addColumn("event_id", "text", (col) => col.notNull())
    .addColumn("received_at", "text", (col) => col.notNull())
    .addPrimaryKeyConstraint("webhook_events_pk", ["tenant_id", "provider", "event_id"])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("webhook_events").execute();
  await db.schema.dropTable("webhook_secrets").execute();
}
