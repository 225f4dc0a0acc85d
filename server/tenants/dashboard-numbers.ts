import { type CampaignComparison, compareCampaigns } from "../campaigns/overview";
import type { Scope } from "../scope";
import { audienceCounts } from "../subscribers/counts";
import { subscriberGrowth } from "../subscribers/growth";

/*
 * The dashboard's numbers (issue 35, target 7): the audience and its growth, the last campaign's
 * reach, and the drafts waiting. Read from the counts and reports the other pages use: the
 * trigger-kept audience counts, the subscribers' timelines, the campaign comparison.
 */

export const GROWTH_DAYS = 30;

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
    subscriberGrowth(db, tenant, { days: GROWTH_DAYS, now }),
    compareCampaigns({ db, tenant }, 1),
    countDrafts(scope),
  ]);
  const sum = (key: "new" | "unsubscribed" | "net") =>
    growth.reduce((total, day) => total + day[key], 0);
  return {
    subscribers: {
      active: counts.all.active,
      total: Object.values(counts.all).reduce((total, count) => total + count, 0),
    },
    growth: {
      days: GROWTH_DAYS,
      new: sum("new"),
      unsubscribed: sum("unsubscribed"),
      net: sum("net"),
    },
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
