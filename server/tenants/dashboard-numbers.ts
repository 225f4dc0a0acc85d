import { utcToZonedLocal, zonedLocalToUtc } from "../../shared/time-zone";
import { type CampaignComparison, compareCampaigns } from "../campaigns/overview";
import type { Scope } from "../scope";
import { audienceCounts } from "../subscribers/counts";

/*
 * The dashboard's numbers (issue 35, target 7): the audience and its growth, the last campaign's
 * reach, and the drafts waiting. Read from what the other pages use: the trigger-kept audience
 * counts, the subscribers' timelines (counted as the subscribers page's growth chart counts them,
 * for the whole tenant), the campaign comparison.
 */

export const GROWTH_DAYS = 30;
const DAY_MS = 86_400_000;

export interface DashboardNumbers {
  subscribers: { active: number; total: number };
  /** over the last GROWTH_DAYS days, in the tenant's time zone */
  growth: { days: number; new: number; unsubscribed: number; net: number };
  /** the newest campaign that went out, people's opens and clicks only (no machine opens) */
  lastCampaign: Pick<
    CampaignComparison,
    "id" | "name" | "startedAt" | "sent" | "opened" | "clicked"
  > | null;
  drafts: { newsletters: number; campaigns: number };
}

export async function dashboardNumbers(
  scope: Pick<Scope, "db" | "tenant">,
  now = new Date(),
): Promise<DashboardNumbers> {
  const { db, tenant } = scope;
  const [counts, growth, [last], drafts] = await Promise.all([
    audienceCounts(db, tenant.id),
    growthOver(scope, GROWTH_DAYS, now),
    compareCampaigns({ db, tenant }, 1),
    countDrafts(scope),
  ]);
  return {
    subscribers: {
      active: counts.all.active,
      total: Object.values(counts.all).reduce((total, count) => total + count, 0),
    },
    growth: { days: GROWTH_DAYS, ...growth },
    lastCampaign: last
      ? {
          id: last.id,
          name: last.name,
          startedAt: last.startedAt,
          sent: last.sent,
          opened: last.opened,
          clicked: last.clicked,
        }
      : null,
    drafts,
  };
}

/**
 * Sign-ups, unsubscribes and the net change (confirmed − unsubscribed) over the last `days` days
 * of the tenant's calendar, today included: subscriberGrowth's sums, counted by the database
 * instead of read event by event (a large import is thousands of events, and the dashboard is
 * where staff land). A sign-up counts as confirmed when it was active at once; its detail is
 * JSON.stringify's, so `"active":true` is that flag (a quote inside a string would be escaped).
 */
async function growthOver(
  scope: Pick<Scope, "db" | "tenant">,
  days: number,
  now: Date,
): Promise<{ new: number; unsubscribed: number; net: number }> {
  const zone = scope.tenant.timeZone;
  const firstDay = utcToZonedLocal(
    new Date(now.getTime() - (days - 1) * DAY_MS).toISOString(),
    zone,
  );
  const since =
    zonedLocalToUtc(`${firstDay.slice(0, 10)}T00:00`, zone) ??
    new Date(now.getTime() - days * DAY_MS).toISOString();
  const rows = await scope.db
    .selectFrom("subscriber_events")
    .select((eb) => [
      "kind",
      eb.fn.countAll<number>().as("count"),
      eb.fn
        .sum<number>(eb.case().when("detail", "like", '%"active":true%').then(1).else(0).end())
        .as("active"),
    ])
    .where("kind", "in", ["signed-up", "confirmed", "unsubscribed"])
    .where("created_at", ">=", since)
    .groupBy("kind")
    .execute();
  const of = (kind: string) => rows.find((row) => row.kind === kind);
  const signedUp = Number(of("signed-up")?.count ?? 0);
  const confirmed = Number(of("signed-up")?.active ?? 0) + Number(of("confirmed")?.count ?? 0);
  const unsubscribed = Number(of("unsubscribed")?.count ?? 0);
  return { new: signedUp, unsubscribed, net: confirmed - unsubscribed };
}

/** Newsletter drafts (scheduled ones too) and campaigns still being written. */
async function countDrafts(
  scope: Pick<Scope, "db">,
): Promise<{ newsletters: number; campaigns: number }> {
  const [newsletters, campaigns] = await Promise.all([
    scope.db
      .selectFrom("newsletters")
      .select((eb) => eb.fn.countAll<number>().as("count"))
      .where("status", "=", "draft")
      .executeTakeFirstOrThrow(),
    scope.db
      .selectFrom("campaigns")
      .select((eb) => eb.fn.countAll<number>().as("count"))
      .where("status", "=", "draft")
      .where("sequence_list_id", "is", null)
      .executeTakeFirstOrThrow(),
  ]);
  return { newsletters: Number(newsletters.count), campaigns: Number(campaigns.count) };
}
