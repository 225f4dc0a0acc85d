import { type Expression, type ExpressionBuilder, type SqlBool, sql } from "kysely";
import { abSubjectLabel } from "../../shared/schemas/campaign";
import type { ActivityFilter, ActivityQuery } from "../../shared/schemas/campaign-activity";
import { csvDocument } from "../csv-document";
import type { Db } from "../db";
import { likePattern } from "../db/portable";
import type { CampaignEventKind, Database } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";

/*
 * Who did what with a campaign (issue 35, target 4): each recipient's delivery, opens, clicks
 * (which links), bounce, complaint and unsubscribe, filtered, paged by delivery id (keyset), and
 * the same rows for the CSV. A click counts as an open (campaign-events.ts records one with it);
 * a machine's open (machine-opens.ts) does not. Reads only.
 */

export const RECIPIENTS_PAGE_SIZE = 50;

type DeliveryEb = ExpressionBuilder<Database, "deliveries">;

/** People's events of `kinds` on the delivery in hand. */
function hasEvent(eb: DeliveryEb, kinds: CampaignEventKind[]): Expression<SqlBool> {
  return eb.exists(
    eb
      .selectFrom("campaign_events")
      .select(sql`1`.as("one"))
      .whereRef("campaign_events.delivery_id", "=", "deliveries.id")
      .where("campaign_events.kind", "in", kinds)
      .where("campaign_events.machine", "=", 0),
  );
}

/** Accepted by the receiving server and not bounced since. */
const delivered = (eb: DeliveryEb) =>
  eb.and([eb("deliveries.status", "=", "sent"), eb("deliveries.bounced_at", "is", null)]);

/** The deliveries a filter keeps. Clicks are opens too (older clicks may have no open recorded). */
export function activityCondition(eb: DeliveryEb, filter: ActivityFilter): Expression<SqlBool> {
  switch (filter) {
    case "all":
      return sql<SqlBool>`1 = 1`;
    case "delivered":
      return delivered(eb);
    case "opened":
      return hasEvent(eb, ["open", "click"]);
    case "not-opened":
      return eb.and([delivered(eb), eb.not(hasEvent(eb, ["open", "click"]))]);
    case "clicked":
      return hasEvent(eb, ["click"]);
    case "bounced":
      return eb("deliveries.bounced_at", "is not", null);
    case "unsubscribed":
      return hasEvent(eb, ["unsubscribe"]);
  }
}

/**
 * The subscribers "Send to those who did not open" reaches (resend-unopened.ts), as a subquery of
 * the send's audience: delivered, no open and no click by a person, no complaint. Whether they are
 * still subscribed is the audience's own condition, read when the send starts.
 */
export function unopenedSubscribers(root: Db, tenantId: string, campaignId: string) {
  return tenantDb(root, tenantId)
    .selectFrom("deliveries")
    .select("deliveries.subscriber_id")
    .where("deliveries.campaign_id", "=", campaignId)
    .where("deliveries.complained_at", "is", null)
    .where((eb) => activityCondition(eb, "not-opened"));
}

export interface RecipientActivity {
  deliveryId: number;
  email: string;
  status: "pending" | "sending" | "sent" | "failed" | "cancelled";
  sentAt: string | null;
  bouncedAt: string | null;
  complainedAt: string | null;
  opens: number;
  firstOpenedAt: string | null;
  clicks: number;
  /** the links clicked, most clicked first */
  links: string[];
  unsubscribedAt: string | null;
  /** an A/B test's subject this recipient got (0 = A), and in which phase; null: no test */
  abVariant: number | null;
  abPhase: "test" | "remainder" | null;
}

function matching(db: Db, campaignId: string, query: Pick<ActivityQuery, "filter" | "q">) {
  let rows = db
    .selectFrom("deliveries")
    .select([
      "deliveries.id",
      "deliveries.email",
      "deliveries.status",
      "deliveries.sent_at",
      "deliveries.bounced_at",
      "deliveries.complained_at",
      "deliveries.ab_variant",
      "deliveries.ab_phase",
    ])
    .where("deliveries.campaign_id", "=", campaignId);
  if (query.filter !== "all") rows = rows.where((eb) => activityCondition(eb, query.filter));
  const q = query.q.trim();
  if (q)
    rows = rows.where(sql<SqlBool>`lower(deliveries.email) like ${likePattern(q)} escape '\\'`);
  return rows;
}

type DeliveryColumns = Awaited<ReturnType<ReturnType<typeof matching>["execute"]>>[number];

interface EventSummary {
  kind: CampaignEventKind;
  url: string | null;
  count: number;
  first: string;
}

/** The people's events of a campaign's deliveries (those given, or all), by delivery. */
async function eventsByDelivery(
  db: Db,
  campaignId: string,
  deliveryIds?: number[],
): Promise<Map<number, EventSummary[]>> {
  const byDelivery = new Map<number, EventSummary[]>();
  if (deliveryIds?.length === 0) return byDelivery;
  let query = db
    .selectFrom("campaign_events")
    .select([
      "delivery_id",
      "kind",
      "url",
      (eb) => eb.fn.countAll<number>().as("count"),
      (eb) => eb.fn.min("created_at").as("first"),
    ])
    .where("campaign_id", "=", campaignId)
    .where("machine", "=", 0)
    .where("kind", "in", ["open", "click", "unsubscribe"])
    .groupBy(["delivery_id", "kind", "url"]);
  if (deliveryIds) query = query.where("delivery_id", "in", deliveryIds);
  for (const row of await query.execute()) {
    const summary = { ...row, count: Number(row.count), first: String(row.first) };
    byDelivery.set(row.delivery_id, [...(byDelivery.get(row.delivery_id) ?? []), summary]);
  }
  return byDelivery;
}

function withEvents(
  rows: DeliveryColumns[],
  events: Map<number, EventSummary[]>,
): RecipientActivity[] {
  return rows.map((row) => {
    const own = events.get(row.id) ?? [];
    const of = (kind: CampaignEventKind) => own.filter((event) => event.kind === kind);
    const earliest = (list: EventSummary[]) => list.map((event) => event.first).sort()[0] ?? null;
    const clicks = of("click").sort((a, b) => b.count - a.count);
    return {
      deliveryId: row.id,
      email: row.email,
      status: row.status,
      sentAt: row.sent_at,
      bouncedAt: row.bounced_at,
      complainedAt: row.complained_at,
      opens: of("open").reduce((sum, event) => sum + event.count, 0),
      firstOpenedAt: earliest([...of("open"), ...clicks]),
      clicks: clicks.reduce((sum, event) => sum + event.count, 0),
      links: clicks.map((event) => event.url ?? ""),
      unsubscribedAt: earliest(of("unsubscribe")),
      abVariant: row.ab_variant,
      abPhase: row.ab_phase,
    };
  });
}

/** One page of a campaign's recipients, oldest delivery first, with the keys of its neighbours. */
export async function recipientActivityPage(
  db: Db,
  campaignId: string,
  query: ActivityQuery,
  size = RECIPIENTS_PAGE_SIZE,
): Promise<{ rows: RecipientActivity[]; next: number | null; previous: number | null }> {
  const backwards = query.before !== undefined;
  let page = matching(db, campaignId, query);
  if (query.after !== undefined) page = page.where("deliveries.id", ">", query.after);
  if (query.before !== undefined) page = page.where("deliveries.id", "<", query.before);
  const found = await page
    .orderBy("deliveries.id", backwards ? "desc" : "asc")
    .limit(size + 1)
    .execute();
  const more = found.length > size;
  const rows = found.slice(0, size);
  if (backwards) rows.reverse();
  const first = rows[0]?.id ?? null;
  const last = rows.at(-1)?.id ?? null;
  const events = await eventsByDelivery(
    db,
    campaignId,
    rows.map((row) => row.id),
  );
  return {
    rows: withEvents(rows, events),
    next: backwards || more ? last : null,
    previous: (backwards ? more : query.after !== undefined) ? first : null,
  };
}

/** Every recipient a filter keeps, oldest delivery first (the CSV export). */
export async function allRecipientActivity(
  db: Db,
  campaignId: string,
  query: Pick<ActivityQuery, "filter" | "q">,
): Promise<RecipientActivity[]> {
  const [rows, events] = await Promise.all([
    matching(db, campaignId, query).orderBy("deliveries.id").execute(),
    eventsByDelivery(db, campaignId),
  ]);
  return withEvents(rows, events);
}

/**
 * How many recipients each filter keeps (the filter links' counts, on every load of the report):
 * the same conditions as the filters, counted from the events' index rather than row by row.
 */
export async function activityCounts(
  db: Db,
  campaignId: string,
): Promise<Record<ActivityFilter, number>> {
  const isDelivered = (eb: DeliveryEb) => eb.case().when(delivered(eb)).then(1).else(0).end();
  const [deliveries, opened, byKind] = await Promise.all([
    db
      .selectFrom("deliveries")
      .select((eb) => [
        eb.fn.countAll<number>().as("all"),
        eb.fn.sum<number>(isDelivered(eb)).as("delivered"),
        eb.fn
          .sum<number>(
            eb.case().when("deliveries.bounced_at", "is not", null).then(1).else(0).end(),
          )
          .as("bounced"),
      ])
      .where("deliveries.campaign_id", "=", campaignId)
      .executeTakeFirst(),
    db
      .selectFrom("campaign_events")
      .innerJoin("deliveries", "deliveries.id", "campaign_events.delivery_id")
      .select((eb) => [
        eb.fn.count<number>("campaign_events.delivery_id").distinct().as("opened"),
        eb.fn
          .count<number>(
            eb.case().when(delivered(eb)).then(eb.ref("campaign_events.delivery_id")).end(),
          )
          .distinct()
          .as("openedDelivered"),
      ])
      .where("campaign_events.campaign_id", "=", campaignId)
      .where("campaign_events.kind", "in", ["open", "click"])
      .where("campaign_events.machine", "=", 0)
      .executeTakeFirst(),
    db
      .selectFrom("campaign_events")
      .select(["kind", (eb) => eb.fn.count<number>("delivery_id").distinct().as("people")])
      .where("campaign_id", "=", campaignId)
      .where("kind", "in", ["click", "unsubscribe"])
      .where("machine", "=", 0)
      .groupBy("kind")
      .execute(),
  ]);
  const people = (kind: CampaignEventKind) =>
    Number(byKind.find((row) => row.kind === kind)?.people ?? 0);
  const deliveredCount = Number(deliveries?.delivered ?? 0);
  return {
    all: Number(deliveries?.all ?? 0),
    delivered: deliveredCount,
    opened: Number(opened?.opened ?? 0),
    "not-opened": deliveredCount - Number(opened?.openedDelivered ?? 0),
    clicked: people("click"),
    bounced: Number(deliveries?.bounced ?? 0),
    unsubscribed: people("unsubscribe"),
  };
}

export const ACTIVITY_CSV_COLUMNS = [
  "email",
  "delivery",
  "sent_at",
  "opened",
  "first_opened_at",
  "opens",
  "clicked",
  "clicks",
  "links",
  "bounced_at",
  "complained_at",
  "unsubscribed_at",
  "ab_subject",
] as const;

/** The recipients a filter keeps as CSV (server/csv-document.ts); links are separated by spaces. */
export async function recipientActivityCsv(
  db: Db,
  campaignId: string,
  query: Pick<ActivityQuery, "filter" | "q">,
): Promise<string> {
  const rows = await allRecipientActivity(db, campaignId, query);
  return csvDocument(
    ACTIVITY_CSV_COLUMNS,
    rows.map((row) => [
      row.email,
      row.status,
      row.sentAt ?? "",
      row.firstOpenedAt ? "yes" : "no",
      row.firstOpenedAt ?? "",
      row.opens,
      row.clicks > 0 ? "yes" : "no",
      row.clicks,
      row.links.join(" "),
      row.bouncedAt ?? "",
      row.complainedAt ?? "",
      row.unsubscribedAt ?? "",
      abSubjectLabel(row),
    ]),
  );
}
