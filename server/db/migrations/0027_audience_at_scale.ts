import { sql } from "kysely";
import { isPostgres } from "../portable";
import * as def from "./columns";

/**
 * Issue 16, "Done when": the subscriber admin at a million subscribers, and imports that run in the
 * background.
 *
 * - `audience_counts`: how many (not erased) subscribers a tenant has per status, in all
 *   (list_id 0) and on each list. Triggers on subscribers and subscriptions append a +1/−1 row for
 *   every change — append only, so concurrent writers never wait on a counter row — and
 *   server/subscribers/counts.ts sums them, folding them into one row per key now and then. No
 *   foreign key: the triggers write while a tenant's rows are deleted; deleteTenant clears them.
 * - Search by part of the email or name through trigrams: an FTS5 trigram index on SQLite, pg_trgm
 *   GIN indexes on PostgreSQL.
 * - Indexes for "newest first" (id order) per tenant and per status, for "signed up between", for
 *   a list's members in id order, and for a custom field's values with their subscriber ids and
 *   statuses (a copy kept by triggers).
 * - `subscriber_imports`: CSV imports as jobs, written in chunks with their progress.
 */
export async function up(db: def.MigrationDb): Promise<void> {
  const postgres = isPostgres(db);

  await db.schema
    .createTable("audience_counts")
    .addColumn("id", def.autoIncrementId(db), def.primaryKey)
    .addColumn("tenant_id", "text", def.required)
    .addColumn("list_id", "integer", def.required)
    .addColumn("status", "text", def.required)
    .addColumn("n", "integer", def.required)
    .execute();
  await def.createIndex(db, "audience_counts_key", "audience_counts", [
    "tenant_id",
    "list_id",
    "status",
  ]);

  if (postgres) {
    await sql`CREATE FUNCTION audience_counts_subscriber() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          -- Its memberships first, while the row is there for their triggers to read.
          DELETE FROM subscriptions WHERE subscriber_id = OLD.id;
          IF OLD.erased_at IS NULL THEN
            INSERT INTO audience_counts (tenant_id, list_id, status, n)
              VALUES (OLD.tenant_id, 0, OLD.status, -1);
          END IF;
          RETURN OLD;
        END IF;
        IF TG_OP = 'INSERT' THEN
          IF NEW.erased_at IS NULL THEN
            INSERT INTO audience_counts (tenant_id, list_id, status, n)
              VALUES (NEW.tenant_id, 0, NEW.status, 1);
          END IF;
          RETURN NULL;
        END IF;
        IF OLD.erased_at IS NULL THEN
          INSERT INTO audience_counts (tenant_id, list_id, status, n)
            SELECT OLD.tenant_id, 0, OLD.status, -1
            UNION ALL SELECT OLD.tenant_id, list_id, OLD.status, -1
              FROM subscriptions WHERE subscriber_id = OLD.id;
        END IF;
        IF NEW.erased_at IS NULL THEN
          INSERT INTO audience_counts (tenant_id, list_id, status, n)
            SELECT NEW.tenant_id, 0, NEW.status, 1
            UNION ALL SELECT NEW.tenant_id, list_id, NEW.status, 1
              FROM subscriptions WHERE subscriber_id = NEW.id;
        END IF;
        RETURN NULL;
      END $$`.execute(db);
    await sql`CREATE TRIGGER audience_counts_subscriber_insert AFTER INSERT ON subscribers
      FOR EACH ROW EXECUTE FUNCTION audience_counts_subscriber()`.execute(db);
    await sql`CREATE TRIGGER audience_counts_subscriber_update AFTER UPDATE OF status, erased_at
      ON subscribers FOR EACH ROW
      WHEN (OLD.status IS DISTINCT FROM NEW.status OR (OLD.erased_at IS NULL) <> (NEW.erased_at IS NULL))
      EXECUTE FUNCTION audience_counts_subscriber()`.execute(db);
    await sql`CREATE TRIGGER audience_counts_subscriber_delete BEFORE DELETE ON subscribers
      FOR EACH ROW EXECUTE FUNCTION audience_counts_subscriber()`.execute(db);
    await sql`CREATE FUNCTION audience_counts_subscription() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO audience_counts (tenant_id, list_id, status, n)
            SELECT tenant_id, NEW.list_id, status, 1 FROM subscribers
            WHERE id = NEW.subscriber_id AND erased_at IS NULL;
        ELSE
          INSERT INTO audience_counts (tenant_id, list_id, status, n)
            SELECT tenant_id, OLD.list_id, status, -1 FROM subscribers
            WHERE id = OLD.subscriber_id AND erased_at IS NULL;
        END IF;
        RETURN NULL;
      END $$`.execute(db);
    await sql`CREATE TRIGGER audience_counts_subscription AFTER INSERT OR DELETE ON subscriptions
      FOR EACH ROW EXECUTE FUNCTION audience_counts_subscription()`.execute(db);

    await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
    await sql`CREATE INDEX subscribers_email_trigrams ON subscribers
      USING gin (lower(email) gin_trgm_ops)`.execute(db);
    await sql`CREATE INDEX subscribers_name_trigrams ON subscribers
      USING gin (lower(name) gin_trgm_ops)`.execute(db);
  } else {
    await sql`CREATE TRIGGER audience_counts_subscriber_insert AFTER INSERT ON subscribers
      WHEN new.erased_at IS NULL BEGIN
        INSERT INTO audience_counts (tenant_id, list_id, status, n)
          VALUES (new.tenant_id, 0, new.status, 1);
      END`.execute(db);
    await sql`CREATE TRIGGER audience_counts_subscriber_update AFTER UPDATE OF status, erased_at
      ON subscribers
      WHEN old.status IS NOT new.status OR (old.erased_at IS NULL) <> (new.erased_at IS NULL) BEGIN
        INSERT INTO audience_counts (tenant_id, list_id, status, n)
          SELECT old.tenant_id, 0, old.status, -1 WHERE old.erased_at IS NULL
          UNION ALL SELECT old.tenant_id, list_id, old.status, -1
            FROM subscriptions WHERE subscriber_id = old.id AND old.erased_at IS NULL
          UNION ALL SELECT new.tenant_id, 0, new.status, 1 WHERE new.erased_at IS NULL
          UNION ALL SELECT new.tenant_id, list_id, new.status, 1
            FROM subscriptions WHERE subscriber_id = new.id AND new.erased_at IS NULL;
      END`.execute(db);
    // Its memberships first, while the row is there for their triggers to read.
    await sql`CREATE TRIGGER audience_counts_subscriber_delete BEFORE DELETE ON subscribers BEGIN
        DELETE FROM subscriptions WHERE subscriber_id = old.id;
        INSERT INTO audience_counts (tenant_id, list_id, status, n)
          SELECT old.tenant_id, 0, old.status, -1 WHERE old.erased_at IS NULL;
      END`.execute(db);
    await sql`CREATE TRIGGER audience_counts_subscription_insert AFTER INSERT ON subscriptions BEGIN
        INSERT INTO audience_counts (tenant_id, list_id, status, n)
          SELECT tenant_id, new.list_id, status, 1 FROM subscribers
          WHERE id = new.subscriber_id AND erased_at IS NULL;
      END`.execute(db);
    await sql`CREATE TRIGGER audience_counts_subscription_delete AFTER DELETE ON subscriptions BEGIN
        INSERT INTO audience_counts (tenant_id, list_id, status, n)
          SELECT tenant_id, old.list_id, status, -1 FROM subscribers
          WHERE id = old.subscriber_id AND erased_at IS NULL;
      END`.execute(db);

    // Trigrams of the email and name, read from subscribers itself (external content). Column
    // detail without positions: LIKE '%…%' on one column uses it, and it stays small.
    await sql`CREATE VIRTUAL TABLE subscriber_search USING fts5(email, name,
      content='subscribers', content_rowid='id', tokenize='trigram', detail='column')`.execute(db);
    await sql`CREATE TRIGGER subscriber_search_insert AFTER INSERT ON subscribers BEGIN
        INSERT INTO subscriber_search (rowid, email, name) VALUES (new.id, new.email, new.name);
      END`.execute(db);
    await sql`CREATE TRIGGER subscriber_search_delete AFTER DELETE ON subscribers BEGIN
        INSERT INTO subscriber_search (subscriber_search, rowid, email, name)
          VALUES ('delete', old.id, old.email, old.name);
      END`.execute(db);
    await sql`CREATE TRIGGER subscriber_search_update AFTER UPDATE OF email, name ON subscribers BEGIN
        INSERT INTO subscriber_search (subscriber_search, rowid, email, name)
          VALUES ('delete', old.id, old.email, old.name);
        INSERT INTO subscriber_search (rowid, email, name) VALUES (new.id, new.email, new.name);
      END`.execute(db);
    await sql`INSERT INTO subscriber_search (subscriber_search) VALUES ('rebuild')`.execute(db);
  }

  // The counts as they stand (raw SQL: every tenant at once, which the tenant guard would refuse).
  await sql`INSERT INTO audience_counts (tenant_id, list_id, status, n)
    SELECT tenant_id, 0, status, COUNT(*) FROM subscribers WHERE erased_at IS NULL
    GROUP BY tenant_id, status`.execute(db);
  await sql`INSERT INTO audience_counts (tenant_id, list_id, status, n)
    SELECT s.tenant_id, x.list_id, s.status, COUNT(*)
    FROM subscriptions x JOIN subscribers s ON s.id = x.subscriber_id
    WHERE s.erased_at IS NULL GROUP BY s.tenant_id, x.list_id, s.status`.execute(db);

  for (const [name, columns] of [
    ["subscribers_newest", ["tenant_id", "id"]],
    ["subscribers_newest_by_status", ["tenant_id", "status", "id"]],
    ["subscribers_signed_up", ["tenant_id", "created_at", "status"]],
  ] as const) {
    await db.schema
      .createIndex(name)
      .on("subscribers")
      .columns([...columns])
      .where(sql.ref("erased_at"), "is", null)
      .execute();
  }
  await db.schema.dropIndex("subscriptions_list").execute();
  await def.createIndex(db, "subscriptions_list", "subscriptions", ["list_id", "subscriber_id"]);
  // Is this subscriber on that list (of this tenant)? From the index alone.
  await def.createIndex(db, "subscriptions_member", "subscriptions", [
    "subscriber_id",
    "list_id",
    "tenant_id",
  ]);
  // A value carries its subscriber's status (null once erased), kept by triggers: a segment on one
  // field is counted from this index alone, and a longer rule reads subscriber ids from it.
  await db.schema.alterTable("subscriber_values").addColumn("subscriber_status", "text").execute();
  if (postgres) {
    await sql`CREATE FUNCTION subscriber_values_status() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.subscriber_status := (SELECT CASE WHEN erased_at IS NULL THEN status END
          FROM subscribers WHERE id = NEW.subscriber_id);
        RETURN NEW;
      END $$`.execute(db);
    await sql`CREATE TRIGGER subscriber_values_status BEFORE INSERT ON subscriber_values
      FOR EACH ROW EXECUTE FUNCTION subscriber_values_status()`.execute(db);
    await sql`CREATE FUNCTION subscriber_values_follow() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE subscriber_values
          SET subscriber_status = CASE WHEN NEW.erased_at IS NULL THEN NEW.status END
          WHERE subscriber_id = NEW.id;
        RETURN NULL;
      END $$`.execute(db);
    await sql`CREATE TRIGGER subscriber_values_follow AFTER UPDATE OF status, erased_at
      ON subscribers FOR EACH ROW
      WHEN (OLD.status IS DISTINCT FROM NEW.status OR (OLD.erased_at IS NULL) <> (NEW.erased_at IS NULL))
      EXECUTE FUNCTION subscriber_values_follow()`.execute(db);
    // Whether a subscriber is in a tenant, not erased, and in which status, from the index alone.
    await sql`CREATE INDEX subscribers_audience ON subscribers (id) INCLUDE (tenant_id, status)
      WHERE erased_at IS NULL`.execute(db);
  } else {
    await sql`CREATE TRIGGER subscriber_values_status AFTER INSERT ON subscriber_values BEGIN
        UPDATE subscriber_values SET subscriber_status = (
          SELECT CASE WHEN erased_at IS NULL THEN status END FROM subscribers
          WHERE id = new.subscriber_id)
        WHERE subscriber_id = new.subscriber_id AND field_key = new.field_key;
      END`.execute(db);
    await sql`CREATE TRIGGER subscriber_values_follow AFTER UPDATE OF status, erased_at ON subscribers
      WHEN old.status IS NOT new.status OR (old.erased_at IS NULL) <> (new.erased_at IS NULL) BEGIN
        UPDATE subscriber_values
          SET subscriber_status = CASE WHEN new.erased_at IS NULL THEN new.status END
          WHERE subscriber_id = new.id;
      END`.execute(db);
  }
  await sql`UPDATE subscriber_values SET subscriber_status = (
    SELECT CASE WHEN erased_at IS NULL THEN status END FROM subscribers
    WHERE subscribers.id = subscriber_values.subscriber_id)`.execute(db);
  await db.schema.dropIndex("subscriber_values_by_value").execute();
  await def.createIndex(db, "subscriber_values_by_value", "subscriber_values", [
    "tenant_id",
    "field_key",
    "value",
    "subscriber_status",
    "subscriber_id",
  ]);

  await def
    .tenantTable(db, "subscriber_imports")
    .addColumn("file_name", "text", def.required)
    // the file as uploaded; emptied once the import ends
    .addColumn("csv", "text", def.required)
    // queued | running | done | failed
    .addColumn("status", "text", def.required)
    .addColumn("total_rows", "integer", def.requiredWithDefault(0))
    // valid rows written so far, and the file line of the last one (where a resumed job goes on)
    .addColumn("done_rows", "integer", def.requiredWithDefault(0))
    .addColumn("done_through_line", "integer", def.requiredWithDefault(0))
    .addColumn("created", "integer", def.requiredWithDefault(0))
    .addColumn("updated", "integer", def.requiredWithDefault(0))
    .addColumn("kept_unsubscribed", "integer", def.requiredWithDefault(0))
    .addColumn("refused_count", "integer", def.requiredWithDefault(0))
    // the first refused rows, as JSON
    .addColumn("refused", "text", def.requiredWithDefault("[]"))
    .addColumn("error", "text")
    .addColumn("created_by", "text", def.required)
    .addColumn("created_at", "text", def.required)
    .addColumn("started_at", "text")
    .addColumn("finished_at", "text")
    // the process working on it, and when it last said so (a silent one's job is taken over)
    .addColumn("claimed_by", "text")
    .addColumn("heartbeat_at", "text")
    .execute();
  await def.createIndex(db, "subscriber_imports_tenant", "subscriber_imports", ["tenant_id", "id"]);
  await def.createIndex(db, "subscriber_imports_status", "subscriber_imports", ["status"]);
}

export async function down(db: def.MigrationDb): Promise<void> {
  const postgres = isPostgres(db);
  await db.schema.dropTable("subscriber_imports").execute();
  await db.schema.dropIndex("subscriptions_member").execute();
  await db.schema.dropIndex("subscriptions_list").execute();
  await def.createIndex(db, "subscriptions_list", "subscriptions", ["list_id"]);
  await db.schema.dropIndex("subscriber_values_by_value").execute();
  if (postgres) {
    await sql`DROP INDEX subscribers_audience`.execute(db);
    await sql`DROP TRIGGER subscriber_values_follow ON subscribers`.execute(db);
    await sql`DROP TRIGGER subscriber_values_status ON subscriber_values`.execute(db);
    await sql`DROP FUNCTION subscriber_values_follow()`.execute(db);
    await sql`DROP FUNCTION subscriber_values_status()`.execute(db);
  } else {
    await sql`DROP TRIGGER subscriber_values_follow`.execute(db);
    await sql`DROP TRIGGER subscriber_values_status`.execute(db);
  }
  await db.schema.alterTable("subscriber_values").dropColumn("subscriber_status").execute();
  await def.createIndex(db, "subscriber_values_by_value", "subscriber_values", [
    "tenant_id",
    "field_key",
    "value",
  ]);
  for (const name of [
    "subscribers_newest",
    "subscribers_newest_by_status",
    "subscribers_signed_up",
  ]) {
    await db.schema.dropIndex(name).execute();
  }
  if (postgres) {
    await sql`DROP INDEX subscribers_email_trigrams`.execute(db);
    await sql`DROP INDEX subscribers_name_trigrams`.execute(db);
    await sql`DROP TRIGGER audience_counts_subscription ON subscriptions`.execute(db);
    for (const name of ["insert", "update", "delete"]) {
      await sql`DROP TRIGGER ${sql.raw(`audience_counts_subscriber_${name}`)} ON subscribers`.execute(
        db,
      );
    }
    await sql`DROP FUNCTION audience_counts_subscription()`.execute(db);
    await sql`DROP FUNCTION audience_counts_subscriber()`.execute(db);
  } else {
    for (const name of [
      "subscriber_search_insert",
      "subscriber_search_delete",
      "subscriber_search_update",
      "audience_counts_subscriber_insert",
      "audience_counts_subscriber_update",
      "audience_counts_subscriber_delete",
      "audience_counts_subscription_insert",
      "audience_counts_subscription_delete",
    ]) {
      await sql`DROP TRIGGER ${sql.raw(name)}`.execute(db);
    }
    await sql`DROP TABLE subscriber_search`.execute(db);
  }
  await db.schema.dropTable("audience_counts").execute();
}
