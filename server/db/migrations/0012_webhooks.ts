import * as def from "./columns";

/**
 * Issue 14, part 7: a provider's webhook is bound to a tenant by its URL and signed with that
 * tenant's own secret (webhook_secrets; never part of the tenant's config, API or history), and
 * each event is applied once (webhook_events remembers the ids it has seen).
 */
export async function up(db: def.MigrationDb): Promise<void> {
  await db.schema
    .createTable("webhook_secrets")
    .addColumn("tenant_id", "text", def.ownedBy("tenants.id"))
    .$call(def.requiredText("provider", "secret", "created_by", "created_at"))
    .addPrimaryKeyConstraint("webhook_secrets_pk", ["tenant_id", "provider"])
    .execute();
  await db.schema
    .createTable("webhook_events")
    .addColumn("tenant_id", "text", def.ownedBy("tenants.id"))
    .$call(def.requiredText("provider", "event_id", "received_at"))
    .addPrimaryKeyConstraint("webhook_events_pk", ["tenant_id", "provider", "event_id"])
    .execute();
}

export async function down(db: def.MigrationDb): Promise<void> {
  await db.schema.dropTable("webhook_events").execute();
  await db.schema.dropTable("webhook_secrets").execute();
}
