import { sql } from "kysely";
import * as def from "./columns";

/**
 * Issue 35, target 4: "Send to those who did not open" makes a campaign whose audience is another
 * campaign's delivered recipients with no open and no click. `unopened_of` names that campaign; it
 * is unique, so pressing the button twice makes one draft (both databases allow many NULLs in a
 * unique index). No foreign key: an import writes a tenant's campaigns in any order. The report's
 * recipient list pages through a campaign's deliveries by id. A click counts as an open from now on
 * (campaign-events.ts, addImpliedOpen); the clicks recorded before get their open here.
 */
export async function up(db: def.MigrationDb): Promise<void> {
  await db.schema.alterTable("campaigns").addColumn("unopened_of", "text").execute();
  await db.schema
    .createIndex("campaigns_unopened_of")
    .unique()
    .on("campaigns")
    .column("unopened_of")
    .execute();
  await def.createIndex(db, "deliveries_campaign_id", "deliveries", ["campaign_id", "id"]);
  await sql`insert into campaign_events
      (tenant_id, campaign_id, delivery_id, kind, url, created_at, machine)
    select clicks.tenant_id, clicks.campaign_id, clicks.delivery_id, 'open', null,
      min(clicks.created_at), 0
    from campaign_events clicks
    join campaigns on campaigns.id = clicks.campaign_id
    where clicks.kind = 'click' and campaigns.track_opens = 1
      and not exists (select 1 from campaign_events opens where opens.delivery_id = clicks.delivery_id
        and opens.kind = 'open' and opens.machine = 0)
    group by clicks.tenant_id, clicks.campaign_id, clicks.delivery_id`.execute(db);
}

/** The opens the backfill added stay: they cannot be told from the pixel's. */
export async function down(db: def.MigrationDb): Promise<void> {
  await db.schema.dropIndex("deliveries_campaign_id").execute();
  await db.schema.dropIndex("campaigns_unopened_of").execute();
  await db.schema.alterTable("campaigns").dropColumn("unopened_of").execute();
}
