import * as def from "./columns";

export async function up(db: def.MigrationDb): Promise<void> {
  await db.schema
    .createTable("tenants")
    .addColumn("id", "text", def.primaryKey)
    .addColumn("name", "text", def.required)
    .addColumn("domain", "text", (col) => col.unique())
    .addColumn("description", "text", def.requiredWithDefault(""))
    .addColumn("mail_list_group_id", "text")
    .addColumn("config", "text", def.requiredWithDefault("{}"))
    .$call(def.requiredText("created_at", "updated_at"))
    .execute();

  await def
    .tenantTable(db, "contact_messages")
    .$call(def.requiredText("name", "email"))
    .addColumn("company", "text")
    .$call(def.requiredText("message", "created_at"))
    .execute();

  await def.createIndex(db, "contact_messages_tenant_created", "contact_messages", [
    "tenant_id",
    "created_at",
  ]);
}

export async function down(db: def.MigrationDb): Promise<void> {
  await db.schema.dropTable("contact_messages").execute();
  await db.schema.dropTable("tenants").execute();
}
