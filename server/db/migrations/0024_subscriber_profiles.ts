import * as def from "./columns";

/**
 * Issue 16, points 2, 3 and 5: a tenant's custom subscriber fields (text, number, date or choice) and
 * each subscriber's values of them, one row per value so a segment can filter on one through an
 * index; and the subscriber's timeline — sign-up with its consent evidence (form, page, time,
 * client address), confirmation, preference changes, staff edits, unsubscribes. Campaign events
 * are read from deliveries and campaign_events, not copied here.
 */
export async function up(db: def.MigrationDb): Promise<void> {
  // Point 5: an erased subscriber's row stays, anonymous, so campaign statistics keep their counts.
  await db.schema.alterTable("subscribers").addColumn("erased_at", "text").execute();
  await db.schema
    .createTable("subscriber_fields")
    .addColumn("tenant_id", "text", def.ownedBy("tenants.id"))
    .addColumn("key", "text", def.required)
    .addColumn("label", "text", def.required)
    .addColumn("type", "text", def.required)
    .addColumn("choices", "text", def.requiredWithDefault("[]"))
    .addColumn("position", "integer", def.required)
    .addColumn("created_at", "text", def.required)
    .addPrimaryKeyConstraint("subscriber_fields_pk", ["tenant_id", "key"])
    .execute();
  await db.schema
    .createTable("subscriber_values")
    .addColumn("tenant_id", "text", def.ownedBy("tenants.id"))
    .addColumn("subscriber_id", "integer", def.ownedBy("subscribers.id"))
    .addColumn("field_key", "text", def.required)
    .addColumn("value", "text", def.required)
    .addPrimaryKeyConstraint("subscriber_values_pk", ["subscriber_id", "field_key"])
    .addForeignKeyConstraint(
      "subscriber_values_field_fk",
      ["tenant_id", "field_key"],
      "subscriber_fields",
      ["tenant_id", "key"],
      (fk) => fk.onDelete("cascade"),
    )
    .execute();
  await def.createIndex(db, "subscriber_values_by_value", "subscriber_values", [
    "tenant_id",
    "field_key",
    "value",
  ]);
  await def
    .tenantTable(db, "subscriber_events")
    .addColumn("subscriber_id", "integer", def.ownedBy("subscribers.id"))
    .addColumn("kind", "text", def.required)
    .addColumn("detail", "text", def.requiredWithDefault("{}"))
    .addColumn("created_at", "text", def.required)
    .execute();
  await def.createIndex(db, "subscriber_events_by_subscriber", "subscriber_events", [
    "subscriber_id",
    "created_at",
  ]);
}

export async function down(db: def.MigrationDb): Promise<void> {
  for (const table of ["subscriber_events", "subscriber_values", "subscriber_fields"]) {
    await db.schema.dropTable(table).execute();
  }
  await db.schema.alterTable("subscribers").dropColumn("erased_at").execute();
}
