import { sql } from "kysely";
import type { Db } from "../db";
import type { DeliveryRow } from "../db/schema";
import { crossTenant } from "../db/tenant-guard";
import { claimCampaignDeliveries } from "./deliveries";

/**
 * The sender's batch, shared fairly (issue 44): the tenants with due deliveries take turns, each
 * given an equal share of the batch, and within a tenant its campaigns in order. Claimed oldest
 * row first across all tenants, a 100,000-recipient campaign queued a minute earlier held a
 * neighbour's 100-recipient one until its last batch. A share a tenant cannot fill passes to the
 * tenants after it; `turn` rotates who is first, so no tenant is always served last.
 */
export async function claimFairBatch(
  db: Db,
  workerId: string,
  limit: number,
  now: string,
  turn = 0,
): Promise<DeliveryRow[]> {
  // Sending campaigns with a due row: the exists reads the (campaign_id, status) index.
  const open = await crossTenant(db)
    .selectFrom("campaigns")
    .select(["tenant_id", "id"])
    .where("status", "=", "sending")
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("deliveries")
          .select(sql`1`.as("one"))
          // A campaign's id is its tenant's alone: its deliveries need no tenant match.
          .whereRef("deliveries.campaign_id", "=", "campaigns.id")
          .where("deliveries.status", "=", "pending")
          .where("deliveries.next_attempt_at", "<=", now),
      ),
    )
    .orderBy("tenant_id")
    .orderBy("id")
    .execute();
  const byTenant = new Map<string, string[]>();
  for (const { tenant_id, id } of open)
    byTenant.set(tenant_id, [...(byTenant.get(tenant_id) ?? []), id]);
  const tenants = [...byTenant.keys()];
  const first = tenants.length > 0 ? turn % tenants.length : 0;
  const inTurn = [...tenants.slice(first), ...tenants.slice(0, first)];
  const claimed: DeliveryRow[][] = [];
  let left = limit;
  for (const [index, tenant] of inTurn.entries()) {
    let share = Math.ceil(left / (inTurn.length - index));
    const rows: DeliveryRow[] = [];
    for (const campaignId of byTenant.get(tenant) ?? []) {
      if (share <= 0) break;
      const taken = await claimCampaignDeliveries(db, workerId, campaignId, share, now);
      rows.push(...taken);
      share -= taken.length;
    }
    left -= rows.length;
    claimed.push(rows);
  }
  return interleaved(claimed);
}

/** One row of each tenant in turn, so the sender's runners serve every tenant from the start. */
function interleaved(groups: DeliveryRow[][]): DeliveryRow[] {
  const rows: DeliveryRow[] = [];
  const longest = Math.max(0, ...groups.map((group) => group.length));
  for (let index = 0; index < longest; index++) {
    for (const group of groups) {
      const row = group[index];
      if (row) rows.push(row);
    }
  }
  return rows;
}
