import type { Db } from "../db";
import type { CampaignEventKind, CampaignRow, CampaignStatus } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import { listTenantLists } from "../subscribers/lists";
import type { SubscriptionContext } from "../subscribers/subscribers";
import { type CampaignProgress, campaignProgress } from "./reports";

/*
 * The campaigns page and the API's lists: campaigns with their progress, each list's figures, and
 * the campaigns that went out side by side.
 */

export interface CampaignListItem {
  campaign: CampaignRow;
  progress: CampaignProgress;
}

/** SPEC §7 getCampaigns: limit 25, page 1 by default, optional status filter. */
export async function listCampaigns(
  ctx: Pick<SubscriptionContext, "db" | "tenant">,
  options: { limit?: number; page?: number; status?: CampaignStatus | null } = {},
): Promise<{ items: CampaignListItem[]; total: number; limit: number; page: number }> {
  const limit = Math.min(Math.max(Math.trunc(options.limit ?? 25), 1), 100);
  const page = Math.max(Math.trunc(options.page ?? 1), 1);
  // Welcome-sequence steps are listed with their list (/admin/lists/:id), not here.
  const db = tenantDb(ctx.db, ctx.tenant.id);
  let query = db.selectFrom("campaigns").where("sequence_list_id", "is", null);
  if (options.status) query = query.where("status", "=", options.status);
  const [{ total }, rows] = await Promise.all([
    query.select((eb) => eb.fn.countAll<number>().as("total")).executeTakeFirstOrThrow(),
    query
      .selectAll()
      .orderBy("created_at", "desc")
      .orderBy("id")
      .limit(limit)
      .offset((page - 1) * limit)
      .execute(),
  ]);
  const items = await Promise.all(
    rows.map(async (campaign) => ({
      campaign,
      progress: await campaignProgress(db, campaign),
    })),
  );
  return { items, total: Number(total), limit, page };
}

/** SPEC's Group fields per list: active subscribers, and sent / opened / clicked over its campaigns. */
export interface GroupStats {
  id: number;
  key: string;
  name: string;
  active_count: number;
  sent: number;
  opened: number;
  clicked: number;
}

export async function listGroupStats(
  ctx: Pick<SubscriptionContext, "db" | "tenant">,
): Promise<GroupStats[]> {
  const { tenant } = ctx;
  const db = tenantDb(ctx.db, tenant.id);
  const lists = await listTenantLists(db, tenant);
  const active = await db
    .selectFrom("subscriptions")
    .innerJoin("subscribers", "subscribers.id", "subscriptions.subscriber_id")
    .select(["subscriptions.list_id", (eb) => eb.fn.countAll<number>().as("count")])
    .where("subscribers.status", "=", "active")
    .groupBy("subscriptions.list_id")
    .execute();
  const campaigns = await db
    .selectFrom("campaigns")
    .select(["id", "list_ids"])
    .where("status", "in", ["sending", "paused", "sent", "failed", "cancelled"])
    .execute();
  const { sent, events } = await sentAndEvents(db, { kinds: ["open", "click"] });
  return lists.map((list) => {
    const mine = campaigns.filter((campaign) =>
      (JSON.parse(campaign.list_ids) as number[]).includes(list.id),
    );
    const sum = (rows: { campaign_id: string; count: number }[]) =>
      rows
        .filter((row) => mine.some((campaign) => campaign.id === row.campaign_id))
        .reduce((total, row) => total + Number(row.count), 0);
    return {
      id: list.id,
      key: list.key,
      name: list.name,
      active_count: Number(active.find((row) => row.list_id === list.id)?.count ?? 0),
      sent: sum(sent),
      opened: sum(events.filter((row) => row.kind === "open")),
      clicked: sum(events.filter((row) => row.kind === "click")),
    };
  });
}

/** One row of the campaign comparison (issue 16, point 8): rates are of the messages sent. */
export interface CampaignComparison {
  id: string;
  name: string;
  startedAt: string | null;
  sent: number;
  opened: number;
  clicked: number;
  unsubscribes: number;
  bounces: number;
}

/** The tenant's campaigns that went out, newest first, side by side (people's opens only). */
export async function compareCampaigns(
  ctx: Pick<SubscriptionContext, "db" | "tenant">,
  limit = 50,
): Promise<CampaignComparison[]> {
  const db = tenantDb(ctx.db, ctx.tenant.id);
  const campaigns = await db
    .selectFrom("campaigns")
    .select(["id", "name", "started_at"])
    .where("status", "in", ["sending", "paused", "sent", "failed", "cancelled"])
    .where("started_at", "is not", null)
    .where("sequence_list_id", "is", null)
    .orderBy("started_at", "desc")
    .limit(limit)
    .execute();
  if (campaigns.length === 0) return [];
  const { sent, events } = await sentAndEvents(db, {
    campaignIds: campaigns.map((campaign) => campaign.id),
  });
  const eventCount = (id: string, kind: string) =>
    Number(events.find((row) => row.campaign_id === id && row.kind === kind)?.count ?? 0);
  return campaigns.map((campaign) => ({
    id: campaign.id,
    name: campaign.name,
    startedAt: campaign.started_at,
    sent: Number(sent.find((row) => row.campaign_id === campaign.id)?.count ?? 0),
    opened: eventCount(campaign.id, "open"),
    clicked: eventCount(campaign.id, "click"),
    unsubscribes: eventCount(campaign.id, "unsubscribe"),
    bounces: eventCount(campaign.id, "bounce"),
  }));
}

/**
 * Per campaign of the (bound) database's tenant: the messages sent, and people's events by kind,
 * each delivery counted once. All campaigns, or those named; all kinds, or those named.
 */
async function sentAndEvents(
  db: Db,
  only: { campaignIds?: readonly string[]; kinds?: readonly CampaignEventKind[] },
) {
  let sent = db
    .selectFrom("deliveries")
    .select(["campaign_id", (eb) => eb.fn.countAll<number>().as("count")])
    .where("status", "=", "sent")
    .groupBy("campaign_id");
  let events = db
    .selectFrom("campaign_events")
    .select([
      "campaign_id",
      "kind",
      (eb) => eb.fn.count<number>("delivery_id").distinct().as("count"),
    ])
    .where("machine", "=", 0)
    .groupBy(["campaign_id", "kind"]);
  if (only.campaignIds) {
    sent = sent.where("campaign_id", "in", only.campaignIds);
    events = events.where("campaign_id", "in", only.campaignIds);
  }
  if (only.kinds) events = events.where("kind", "in", only.kinds);
  const [sentRows, eventRows] = await Promise.all([sent.execute(), events.execute()]);
  return { sent: sentRows, events: eventRows };
}
