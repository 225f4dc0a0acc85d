import { sql } from "kysely";
import slugify from "slugify";
import * as def from "./columns";

/**
 * Issue 15, part 1: readable URLs. `newsletters.slug` is the current one (unique per tenant);
 * `newsletter_slugs` keeps every slug a newsletter ever had, so old links answer 301 to the
 * current one. Existing newsletters get slugs from their titles, oldest first.
 */
export async function up(db: def.MigrationDb): Promise<void> {
  await db.schema.alterTable("newsletters").addColumn("slug", "text").execute();
  await db.schema
    .createTable("newsletter_slugs")
    .addColumn("tenant_id", "text", def.ownedBy("tenants.id"))
    .addColumn("slug", "text", def.required)
    .addColumn("newsletter_id", "text", def.ownedBy("newsletters.id"))
    .addColumn("created_at", "text", def.required)
    .addPrimaryKeyConstraint("newsletter_slugs_pk", ["tenant_id", "slug"])
    .execute();

  // Raw SQL: a migration walks every tenant's rows, which the tenant guard would refuse.
  const { rows } = await sql<{ id: string; tenant_id: string; title: string; created_at: string }>`
    SELECT id, tenant_id, title, created_at FROM newsletters ORDER BY created_at, id`.execute(db);
  const taken = new Set<string>();
  for (const row of rows) {
    // The same rule as server/newsletters/slugs.ts, frozen here as it was when this ran.
    const base =
      slugify(String(row.title), { lower: true, strict: true, trim: true })
        .slice(0, 120)
        .replace(/-+$/, "") || "newsletter";
    let slug = base;
    for (let n = 2; taken.has(`${row.tenant_id} ${slug}`) || /^[0-9a-f-]{36}$/.test(slug); n++) {
      slug = `${base.slice(0, 110)}-${n}`;
    }
    taken.add(`${row.tenant_id} ${slug}`);
    await sql`UPDATE newsletters SET slug = ${slug} WHERE tenant_id = ${row.tenant_id} AND id = ${row.id}`.execute(
      db,
    );
    await sql`INSERT INTO newsletter_slugs (tenant_id, slug, newsletter_id, created_at)
      VALUES (${row.tenant_id}, ${slug}, ${row.id}, ${row.created_at})`.execute(db);
  }
  await db.schema
    .createIndex("newsletters_tenant_slug")
    .on("newsletters")
    .columns(["tenant_id", "slug"])
    .unique()
    .execute();
}

export async function down(db: def.MigrationDb): Promise<void> {
  await db.schema.dropIndex("newsletters_tenant_slug").execute();
  await db.schema.dropTable("newsletter_slugs").execute();
  await db.schema.alterTable("newsletters").dropColumn("slug").execute();
}
