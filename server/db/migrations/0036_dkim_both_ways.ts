import { sql } from "kysely";
import { isPostgres } from "../portable";
import * as def from "./columns";

/**
 * Issue 36, target 6 (docs/decisions/049-dkim-both-ways.md): a tenant may sign with an RSA and an
 * Ed25519 key at once, as RFC 8463 recommends while receivers catch up. At most one active and
 * one pending key per tenant *and algorithm*: the unique constraint gains the algorithm.
 *
 * PostgreSQL swaps the constraint. SQLite cannot drop a table constraint: the table (a few rows
 * per tenant, nothing refers to it) is rebuilt with the new one and its rows copied.
 */
const COLUMNS = sql.raw(
  "id, tenant_id, status, selector, domain, algorithm, public_key, private_key, created_by, created_at",
);

async function rebuildSqlite(db: def.MigrationDb, unique: string[], name: string) {
  await def
    .tenantTable(db, "dkim_keys_rebuilt")
    .$call(def.requiredText("status", "selector"))
    .addColumn("domain", "text", def.required)
    .addColumn("algorithm", "text", def.required)
    .addColumn("public_key", "text", def.required)
    .$call(def.requiredText("private_key", "created_by", "created_at"))
    .addUniqueConstraint(name, unique)
    .execute();
  await sql`INSERT INTO dkim_keys_rebuilt (${COLUMNS}) SELECT ${COLUMNS} FROM dkim_keys`.execute(
    db,
  );
  await db.schema.dropTable("dkim_keys").execute();
  await db.schema.alterTable("dkim_keys_rebuilt").renameTo("dkim_keys").execute();
}

export async function up(db: def.MigrationDb): Promise<void> {
  if (isPostgres(db)) {
    await db.schema.alterTable("dkim_keys").dropConstraint("dkim_keys_tenant_status").execute();
    await db.schema
      .alterTable("dkim_keys")
      .addUniqueConstraint("dkim_keys_tenant_algorithm_status", [
        "tenant_id",
        "algorithm",
        "status",
      ])
      .execute();
    return;
  }
  await rebuildSqlite(
    db,
    ["tenant_id", "algorithm", "status"],
    "dkim_keys_tenant_algorithm_status",
  );
}

export async function down(db: def.MigrationDb): Promise<void> {
  // Back to one key per status: a tenant's Ed25519 keys go where it also has an RSA one.
  await sql`DELETE FROM dkim_keys WHERE algorithm = 'ed25519' AND EXISTS (
    SELECT 1 FROM dkim_keys other WHERE other.tenant_id = dkim_keys.tenant_id
      AND other.status = dkim_keys.status AND other.algorithm = 'rsa')`.execute(db);
  if (isPostgres(db)) {
    await db.schema
      .alterTable("dkim_keys")
      .dropConstraint("dkim_keys_tenant_algorithm_status")
      .execute();
    await db.schema
      .alterTable("dkim_keys")
      .addUniqueConstraint("dkim_keys_tenant_status", ["tenant_id", "status"])
      .execute();
    return;
  }
  await rebuildSqlite(db, ["tenant_id", "status"], "dkim_keys_tenant_status");
}
