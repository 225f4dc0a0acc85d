import {
  type Expression,
  type ExpressionBuilder,
  type SelectQueryBuilder,
  type SqlBool,
  sql,
} from "kysely";
import { type SegmentRule, segmentRuleSchema } from "../../shared/schemas/segment";
import type { Db } from "../db";
import type { Database, SubscriberStatus } from "../db/schema";
import { audienceCounts, type StatusCounts, sumOf, zeroCounts } from "./counts";
import { listFields } from "./fields";

/*
 * Segments (issue 16, point 4): saved filters of a tenant's audience, counted live and usable as a
 * campaign's audience beside lists. A rule's conditions all hold for a subscriber in it; the SQL
 * is the same on SQLite and PostgreSQL.
 */

export interface Segment {
  id: number;
  name: string;
  rule: SegmentRule;
}

export class SegmentError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 404 | 409 = 400,
  ) {
    super(message);
  }
}

const toSegment = (row: { id: number; name: string; rule: string }): Segment => ({
  id: row.id,
  name: row.name,
  rule: segmentRuleSchema.parse(JSON.parse(row.rule)),
});

export async function listSegments(db: Db, tenantId: string): Promise<Segment[]> {
  const rows = await db
    .selectFrom("segments")
    .select(["id", "name", "rule"])
    .where("tenant_id", "=", tenantId)
    .orderBy("name")
    .execute();
  return rows.map(toSegment);
}

export async function getSegment(db: Db, tenantId: string, id: number): Promise<Segment> {
  const row = await db
    .selectFrom("segments")
    .select(["id", "name", "rule"])
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row) throw new SegmentError("Segment not found", 404);
  return toSegment(row);
}

/** A number as the value of a number field is stored (plain decimal), or null. */
function numberText(text: string): string | null {
  if (!/^[-+]?(\d[\d,]*\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(text.trim())) return null;
  const number = Number(text.trim().replaceAll(",", ""));
  return Number.isFinite(number) ? String(number) : null;
}

/** Text a SQL CAST to NUMERIC takes on both databases (what numberText gives). */
const isNumberText = (text: string) =>
  /^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(text) && Number.isFinite(Number(text));

function isDayText(text: string): boolean {
  const date = /^\d{4}-\d{2}-\d{2}$/.test(text) ? new Date(`${text}T00:00:00Z`) : null;
  return date !== null && !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text);
}

/**
 * Fields a rule names must exist (a rule about a deleted field would match nobody silently), and a
 * comparison with a number or date field needs a number or a date (issue 32, finding 6: "greater
 * than abc" was saved, and PostgreSQL's CAST then failed every page that counted the segment).
 * Numbers come back as they are stored ("1,000" → "1000").
 */
export async function checkSegmentRule(
  db: Db,
  tenantId: string,
  rule: SegmentRule,
): Promise<SegmentRule> {
  const fields = new Map((await listFields(db, tenantId)).map((field) => [field.key, field]));
  const conditions = rule.fields.map((condition) => {
    const field = fields.get(condition.key);
    if (!field) throw new SegmentError("Choose fields from the list");
    if (condition.op !== "greater" && condition.op !== "less") return condition;
    if (field.type === "number") {
      const value = numberText(condition.value);
      if (value === null) throw new SegmentError(`Compare ${field.label} with a number`);
      return { ...condition, value };
    }
    if (field.type === "date" && !isDayText(condition.value)) {
      throw new SegmentError(`Compare ${field.label} with a date (YYYY-MM-DD)`);
    }
    return condition;
  });
  return { ...rule, fields: conditions };
}

/** Why a saved rule can no longer be used (a field gone, a comparison saved before the checks), or null. */
export async function segmentRuleProblem(
  db: Db,
  tenantId: string,
  rule: SegmentRule,
): Promise<string | null> {
  try {
    await checkSegmentRule(db, tenantId, rule);
    return null;
  } catch (error) {
    if (error instanceof SegmentError) return error.message;
    throw error;
  }
}

export async function saveSegment(
  db: Db,
  tenantId: string,
  input: { id?: number; name: string; rule: SegmentRule },
): Promise<number> {
  const rule = JSON.stringify(await checkSegmentRule(db, tenantId, input.rule));
  const now = new Date().toISOString();
  if (input.id === undefined) {
    const { id } = await db
      .insertInto("segments")
      .values({ tenant_id: tenantId, name: input.name, rule, created_at: now, updated_at: now })
      .returning("id")
      .executeTakeFirstOrThrow();
    return id;
  }
  const result = await db
    .updateTable("segments")
    .set({ name: input.name, rule, updated_at: now })
    .where("tenant_id", "=", tenantId)
    .where("id", "=", input.id)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw new SegmentError("Segment not found", 404);
  return input.id;
}

/** Deletes a segment, unless a campaign not yet sent goes to it. */
export async function deleteSegment(db: Db, tenantId: string, id: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const waiting = await trx
      .selectFrom("campaigns")
      .select("segment_ids")
      .where("tenant_id", "=", tenantId)
      .where("status", "in", ["draft", "scheduled", "sending", "paused"])
      .execute();
    if (waiting.some((row) => (JSON.parse(row.segment_ids) as number[]).includes(id))) {
      throw new SegmentError(
        "A campaign not yet sent goes to this segment; send, cancel or change that campaign first.",
        409,
      );
    }
    const result = await trx
      .deleteFrom("segments")
      .where("tenant_id", "=", tenantId)
      .where("id", "=", id)
      .executeTakeFirst();
    if (Number(result.numDeletedRows) !== 1) throw new SegmentError("Segment not found", 404);
  });
}

type SubscriberScope = ExpressionBuilder<Database, "subscribers">;
type FieldCondition = SegmentRule["fields"][number];

/** Conditions that hold for the subscribers the opposite condition (set, is) does not match. */
const NEGATED_OPS: ReadonlySet<string> = new Set(["unset", "is-not"]);

/**
 * A query of subscriber_values narrowed to the values a condition names — for a negated one
 * (unset, is-not), the values of its opposite (set, is).
 */
function valuesMatching<Q extends SelectQueryBuilder<Database, "subscriber_values", object>>(
  query: Q,
  tenantId: string,
  condition: FieldCondition,
  numberFields: ReadonlySet<string>,
): Q {
  const values = query
    .where("subscriber_values.tenant_id", "=", tenantId)
    .where("subscriber_values.field_key", "=", condition.key) as Q;
  const value = sql.ref("subscriber_values.value");
  const numeric = numberFields.has(condition.key);
  // A rule saved before numbers were checked may compare with "abc": it matches nobody, where
  // PostgreSQL's CAST would fail the page (issue 32, finding 6).
  const compared = (op: ">" | "<") =>
    !numeric
      ? sql<SqlBool>`${value} ${sql.raw(op)} ${condition.value}`
      : isNumberText(condition.value)
        ? sql<SqlBool>`CAST(${value} AS NUMERIC) ${sql.raw(op)} CAST(${condition.value} AS NUMERIC)`
        : sql<SqlBool>`1 = 0`;
  switch (condition.op) {
    case "set":
    case "unset":
      return values;
    case "is":
    case "is-not":
      return values.where("subscriber_values.value", "=", condition.value) as Q;
    case "contains":
      return values.where(
        sql<SqlBool>`lower(subscriber_values.value) like ${likePattern(condition.value)} escape '\\'`,
      ) as Q;
    case "greater":
      return values.where(compared(">")) as Q;
    case "less":
      return values.where(compared("<")) as Q;
  }
}

const likePattern = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The day after YYYY-MM-DD, as the same text: "signed up before" includes its own day. */
const nextDay = (text: string) =>
  new Date(Date.parse(`${text}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/**
 * A rule as a condition on `subscribers` (tenant `tenantId`). `numberFields` are the keys of number
 * fields, compared as numbers rather than text.
 */
export function segmentCondition(
  eb: SubscriberScope,
  tenantId: string,
  rule: SegmentRule,
  numberFields: ReadonlySet<string>,
  now = new Date(),
): Expression<SqlBool> {
  const conditions: Expression<SqlBool>[] = [];
  if (rule.lists.length > 0) {
    conditions.push(
      eb.exists(
        eb
          .selectFrom("subscriptions")
          .innerJoin("lists", "lists.id", "subscriptions.list_id")
          .select(sql`1`.as("one"))
          .whereRef("subscriptions.subscriber_id", "=", "subscribers.id")
          .where("subscriptions.tenant_id", "=", tenantId)
          .where("lists.tenant_id", "=", tenantId)
          .where("lists.key", "in", rule.lists),
      ),
    );
  }
  if (rule.statuses.length > 0) conditions.push(eb("subscribers.status", "in", rule.statuses));
  if (rule.signedUpAfter) conditions.push(eb("subscribers.created_at", ">=", rule.signedUpAfter));
  if (rule.signedUpBefore) {
    conditions.push(eb("subscribers.created_at", "<", nextDay(rule.signedUpBefore)));
  }
  for (const condition of rule.fields) {
    // "id IN (…)" rather than a correlated EXISTS: the values index yields the few ids of a
    // condition at once, where EXISTS would be asked once for each of a million subscribers.
    const values = valuesMatching(
      eb.selectFrom("subscriber_values").select("subscriber_values.subscriber_id"),
      tenantId,
      condition,
      numberFields,
    );
    const among = eb("subscribers.id", "in", values);
    conditions.push(NEGATED_OPS.has(condition.op) ? eb.not(among) : among);
  }
  if (rule.activity) {
    const kind = rule.activity.kind.endsWith("opened") ? "open" : "click";
    let events = eb
      .selectFrom("deliveries")
      .innerJoin("campaign_events", "campaign_events.delivery_id", "deliveries.id")
      .select(sql`1`.as("one"))
      .whereRef("deliveries.subscriber_id", "=", "subscribers.id")
      .where("deliveries.tenant_id", "=", tenantId)
      .where("campaign_events.tenant_id", "=", tenantId)
      .where("campaign_events.kind", "=", kind)
      .where("campaign_events.machine", "=", 0);
    if (rule.activity.kind.startsWith("never")) {
      conditions.push(eb.not(eb.exists(events)));
    } else {
      const since = new Date(now.getTime() - (rule.activity.days ?? 30) * 86_400_000);
      events = events.where("campaign_events.created_at", ">=", since.toISOString());
      conditions.push(eb.exists(events));
    }
  }
  return conditions.length > 0 ? eb.and(conditions) : sql<SqlBool>`1 = 1`;
}

/** The keys of the tenant's number fields (their values compare as numbers). */
export async function numberFieldKeys(db: Db, tenantId: string): Promise<Set<string>> {
  return new Set(
    (await listFields(db, tenantId))
      .filter((field) => field.type === "number")
      .map((field) => field.key),
  );
}

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
async function listIdsOf(db: Db, tenantId: string, keys: readonly string[]): Promise<number[]> {
  const rows = await db
    .selectFrom("lists")
    .select("id")
    .where("tenant_id", "=", tenantId)
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
    tenantId,
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
          .where("subscriptions.tenant_id", "=", tenantId)
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
        tenantId,
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

/** How many subscribers a rule matches now, and how many of them are active (would be mailed). */
export async function countSegment(
  db: Db,
  tenantId: string,
  rule: SegmentRule,
): Promise<{ matching: number; active: number }> {
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
    .where("subscribers.tenant_id", "=", tenantId)
    .where("subscribers.erased_at", "is", null)
    .where((eb) => segmentCondition(eb, tenantId, rule, numbers))
    .executeTakeFirstOrThrow();
  return { matching: Number(row.matching), active: Number(row.active ?? 0) };
}

/** A campaign's audience from its list and segment ids, with the segments' rules as they are now. */
export async function campaignAudience(
  db: Db,
  tenantId: string,
  ids: { listIds: readonly number[]; segmentIds: readonly number[] },
): Promise<{ listIds: readonly number[]; segments: SegmentRule[]; numberFields: Set<string> }> {
  const segments =
    ids.segmentIds.length > 0
      ? (await listSegments(db, tenantId)).filter((segment) => ids.segmentIds.includes(segment.id))
      : [];
  return {
    listIds: ids.listIds,
    segments: segments.map((segment) => segment.rule),
    numberFields: segments.length > 0 ? await numberFieldKeys(db, tenantId) : new Set(),
  };
}
