import { sql } from "kysely";
import type { SegmentRule } from "../../shared/schemas/segment";
import type { Db } from "../db";
import type { SubscriberStatus } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import { audienceCounts, type StatusCounts, sumOf, zeroCounts } from "./counts";
import {
  type FieldCondition,
  NEGATED_OPS,
  numberFieldKeys,
  segmentCondition,
  valuesMatching,
} from "./segment-sql";

/*
 * How many subscribers a segment matches, live (the segment pages, a campaign's review): from the
 * kept counts when the rule allows, else from a custom field's values, else by the rule's SQL.
 */

/** A rule that only names (at most) one list and statuses: the kept counts answer it. */
function countsAnswer(rule: SegmentRule): boolean {
  return (
    rule.lists.length <= 1 &&
    rule.fields.length === 0 &&
    !rule.signedUpAfter &&
    !rule.signedUpBefore &&
    !rule.activity
  );
}

/** A rule on one custom field (and perhaps statuses): the values index answers it. */
function onlyOneField(rule: SegmentRule): boolean {
  return (
    rule.fields.length === 1 &&
    rule.lists.length === 0 &&
    !rule.signedUpAfter &&
    !rule.signedUpBefore &&
    !rule.activity
  );
}

type SegmentCount = { matching: number; active: number };

/** A count from per-status counts: those in `statuses` (all when none), and the active ones. */
function countOf(of: Readonly<StatusCounts>, statuses: readonly string[]): SegmentCount {
  return {
    matching: sumOf(of, statuses),
    active: statuses.length === 0 || statuses.includes("active") ? of.active : 0,
  };
}

/** The ids of the tenant's lists with these keys. */
async function listIdsOf(root: Db, tenantId: string, keys: readonly string[]): Promise<number[]> {
  const rows = await tenantDb(root, tenantId)
    .selectFrom("lists")
    .select("id")
    .where("key", "in", keys)
    .execute();
  return rows.map((row) => row.id);
}

/** The values a condition names, counted per subscriber status (erased subscribers left out). */
function valuesByStatus(
  db: Db,
  tenantId: string,
  condition: FieldCondition,
  numberFields: ReadonlySet<string>,
) {
  return valuesMatching(
    db
      .selectFrom("subscriber_values")
      .select(["subscriber_values.subscriber_status", (eb) => eb.fn.countAll<number>().as("n")])
      .where("subscriber_values.subscriber_status", "is not", null)
      .groupBy("subscriber_values.subscriber_status"),
    condition,
    numberFields,
  );
}

/** Rows of `valuesByStatus` as counts per status. */
function statusCountsOf(
  rows: readonly { subscriber_status: SubscriberStatus | null; n: number }[],
): StatusCounts {
  const counts: StatusCounts = { ...zeroCounts };
  for (const row of rows) {
    if (row.subscriber_status) counts[row.subscriber_status] = Number(row.n);
  }
  return counts;
}

/**
 * Counts a one-field rule from the values alone, each carrying its subscriber's status (null once
 * erased): no subscriber row is read. A negated condition is everyone less its opposite.
 */
async function countOneField(
  db: Db,
  tenantId: string,
  condition: FieldCondition,
  statuses: readonly string[],
  numberFields: ReadonlySet<string>,
): Promise<SegmentCount> {
  const having = statusCountsOf(
    await valuesByStatus(db, tenantId, condition, numberFields).execute(),
  );
  let of = having;
  if (NEGATED_OPS.has(condition.op)) {
    const { all } = await audienceCounts(db, tenantId);
    of = { ...zeroCounts };
    for (const status of Object.keys(of) as (keyof StatusCounts)[]) {
      of[status] = all[status] - having[status];
    }
  }
  return countOf(of, statuses);
}

/**
 * Counts a rule led by a field condition (`driver`) from that condition's values, each carrying
 * its subscriber's status: lists and the other field conditions are checked per value through
 * indexes, and no subscriber row is read.
 */
async function countFromField(
  db: Db,
  tenantId: string,
  rule: SegmentRule,
  driver: FieldCondition,
  numberFields: ReadonlySet<string>,
): Promise<SegmentCount> {
  let query = valuesByStatus(db, tenantId, driver, numberFields);
  if (rule.statuses.length > 0) {
    query = query.where("subscriber_values.subscriber_status", "in", rule.statuses);
  }
  if (rule.lists.length > 0) {
    const listIds = await listIdsOf(db, tenantId, rule.lists);
    if (listIds.length === 0) return { matching: 0, active: 0 };
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom("subscriptions")
          .select(sql`1`.as("one"))
          .whereRef("subscriptions.subscriber_id", "=", "subscriber_values.subscriber_id")
          .where("subscriptions.list_id", "in", listIds),
      ),
    );
  }
  for (const condition of rule.fields) {
    if (condition === driver) continue;
    query = query.where((eb) => {
      // The inner subscriber_values is the nearer table: its conditions name its own rows.
      const others = valuesMatching(
        eb.selectFrom("subscriber_values").select("subscriber_values.subscriber_id"),
        condition,
        numberFields,
      );
      const among = eb(sql.ref("subscriber_values.subscriber_id"), "in", others);
      return NEGATED_OPS.has(condition.op) ? eb.not(among) : among;
    });
  }
  // The rule's statuses are already in the query: every status counted is a match.
  return countOf(statusCountsOf(await query.execute()), []);
}

/**
 * How many subscribers a rule matches now, and how many of them are active (would be mailed). The
 * counting queries run on the database bound to the tenant: it adds their tenant conditions.
 */
export async function countSegment(
  root: Db,
  tenantId: string,
  rule: SegmentRule,
): Promise<{ matching: number; active: number }> {
  const db = tenantDb(root, tenantId);
  if (countsAnswer(rule)) {
    const counts = await audienceCounts(db, tenantId);
    let of: Readonly<StatusCounts> = counts.all;
    if (rule.lists.length === 1) {
      const [listId] = await listIdsOf(db, tenantId, rule.lists);
      of = (listId !== undefined && counts.lists.get(listId)) || zeroCounts;
    }
    return countOf(of, rule.statuses);
  }
  const numbers = await numberFieldKeys(db, tenantId);
  const [field] = rule.fields;
  if (field && onlyOneField(rule)) {
    return countOneField(db, tenantId, field, rule.statuses, numbers);
  }
  const driver = rule.fields.find((condition) => !NEGATED_OPS.has(condition.op));
  if (driver && !rule.activity && !rule.signedUpAfter && !rule.signedUpBefore) {
    return countFromField(db, tenantId, rule, driver, numbers);
  }
  const row = await db
    .selectFrom("subscribers")
    .select((eb) => [
      eb.fn.countAll<number>().as("matching"),
      eb.fn
        .sum<number>(eb.case().when("subscribers.status", "=", "active").then(1).else(0).end())
        .as("active"),
    ])
    .where("subscribers.erased_at", "is", null)
    .where((eb) => segmentCondition(eb, rule, numbers))
    .executeTakeFirstOrThrow();
  return { matching: Number(row.matching), active: Number(row.active ?? 0) };
}
