import { sql } from "kysely";
import * as def from "./columns";

/**
 * Issue 44, target 1: one claims table for every background job (server/jobs/, decision 056).
 * A row is one job: its kind and zod-checked payload (JSON), the tenant it works for (null: the
 * install's own work, such as the purge or a backup), when it may run, its attempts, the lease a
 * runner holds on it while running (a crashed runner's job is retaken once the lease is over),
 * its progress and its last error. A recurring job keeps one row, named by `unique_key`.
 */
export async function up(db: def.MigrationDb): Promise<void> {
  await db.schema
    .createTable("jobs")
    .addColumn("id", def.autoIncrementId(db), def.primaryKey)
    // nullable: the install's own jobs belong to no tenant
    .addColumn("tenant_id", "text", (col) => col.references("tenants.id").onDelete("cascade"))
    .addColumn("kind", "text", def.required)
    .addColumn("payload", "text", def.requiredWithDefault("{}"))
    // waiting | running | done | failed
    .addColumn("status", "text", def.required)
    // a recurring job's (or any single-instance job's) name: at most one row holds it
    .addColumn("unique_key", "text", (col) => col.unique())
    .addColumn("run_at", "text", def.required)
    .addColumn("attempts", "integer", def.requiredWithDefault(0))
    .addColumn("max_attempts", "integer", def.required)
    .addColumn("claimed_by", "text")
    .addColumn("lease_until", "text")
    // JSON, whatever the job reports (done / total, a step's name)
    .addColumn("progress", "text")
    .addColumn("last_error", "text")
    .addColumn("created_at", "text", def.required)
    .addColumn("started_at", "text")
    .addColumn("finished_at", "text")
    .execute();
  await def.createIndex(db, "jobs_due", "jobs", ["status", "run_at"]);
  await def.createIndex(db, "jobs_kind_tenant", "jobs", ["kind", "tenant_id", "status"]);
  // Imports waiting or cut short by the upgrade: each gets its job (server/jobs/imports.ts).
  for (const [table, kind] of [
    ["subscriber_imports", "audience-import"],
    ["archive_imports", "archive-import"],
  ] as const) {
    await db
      .insertInto("jobs")
      .columns(["tenant_id", "kind", "payload", "status", "run_at", "max_attempts", "created_at"])
      .expression(
        db
          .selectFrom(table)
          .select([
            "tenant_id",
            sql.lit(kind).as("kind"),
            sql<string>`'{"importId":' || id || '}'`.as("payload"),
            sql.lit("waiting").as("status"),
            "created_at as run_at",
            sql.lit(3).as("max_attempts"),
            "created_at",
          ])
          .where(`${table}.status`, "in", ["queued", "running"]),
      )
      .execute();
  }
}

export async function down(db: def.MigrationDb): Promise<void> {
  await db.schema.dropTable("jobs").execute();
}
