import { sql } from "kysely";
import type { Db } from "../db";
import { tenantDb } from "../db/tenant-guard";

/**
 * A tenant's complaint and bounce rates over the last 30 days, against the bulk-sender rules of
 * Gmail and Yahoo (issue 36, target 5): complaints (ARF reports, `deliveries.complained_at`) per
 * message delivered stay under 0.3% (aim below 0.1%); hard bounces (`bounced_at`: a 5xx at send
 * time or a DSN) per message tried, which neither publishes a number for, under the common 2%.
 */

export const COMPLAINT_LIMIT = 0.003;
export const COMPLAINT_TARGET = 0.001;
export const BOUNCE_GUIDANCE = 0.02;
export const RATE_DAYS = 30;

export interface SenderRates {
  since: string;
  delivered: number;
  complaints: number;
  bounces: number;
  /** complaints per delivered message; null before anything was delivered */
  complaintRate: number | null;
  /** hard bounces per message tried (delivered or bounced) */
  bounceRate: number | null;
  complaintStatus: "ok" | "high" | "over";
  bounceStatus: "ok" | "over";
}

export async function senderRates(
  root: Db,
  tenantId: string,
  now = new Date(),
): Promise<SenderRates> {
  const since = new Date(now.getTime() - RATE_DAYS * 86_400_000).toISOString();
  const row = await tenantDb(root, tenantId)
    .selectFrom("deliveries")
    .select([
      sql<number>`count(case when sent_at >= ${since} then 1 end)`.as("delivered"),
      sql<number>`count(case when complained_at >= ${since} then 1 end)`.as("complaints"),
      sql<number>`count(case when bounced_at >= ${since} then 1 end)`.as("bounces"),
      sql<number>`count(case when bounced_at >= ${since} and sent_at is null then 1 end)`.as(
        "refused",
      ),
    ])
    .where((eb) =>
      eb.or([
        eb("sent_at", ">=", since),
        eb("bounced_at", ">=", since),
        eb("complained_at", ">=", since),
      ]),
    )
    .executeTakeFirst();
  const delivered = Number(row?.delivered ?? 0);
  const complaints = Number(row?.complaints ?? 0);
  const bounces = Number(row?.bounces ?? 0);
  const tried = delivered + Number(row?.refused ?? 0);
  const complaintRate = delivered > 0 ? complaints / delivered : null;
  const bounceRate = tried > 0 ? bounces / tried : null;
  return {
    since,
    delivered,
    complaints,
    bounces,
    complaintRate,
    bounceRate,
    complaintStatus:
      complaintRate === null || complaintRate < COMPLAINT_TARGET
        ? "ok"
        : complaintRate < COMPLAINT_LIMIT
          ? "high"
          : "over",
    bounceStatus: bounceRate !== null && bounceRate >= BOUNCE_GUIDANCE ? "over" : "ok",
  };
}
