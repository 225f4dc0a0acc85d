import {
  type Expression,
  type ExpressionBuilder,
  type SelectQueryBuilder,
  type SqlBool,
  sql,
} from "kysely";
import type { SegmentRule } from "../../shared/schemas/segment";
import type { Db } from "../db";
import { likePattern } from "../db/portable";
import type { Database } from "../db/schema";
import { listFields } from "./fields";

/*
 * A segment's rule as SQL (issue 16, point 4): a condition on `subscribers` that the campaign's
 * queue (server/campaigns/deliveries.ts) and the counts (segment-counts.ts) use. A rule's
 * conditions all hold for a subscriber in it; the SQL is the same on SQLite and PostgreSQL.
 */

type SubscriberScope = ExpressionBuilder<Database, "subscribers">;
export type FieldCondition = SegmentRule["fields"][number];

/** Conditions that hold for the subscribers the opposite condition (set, is) does not match. */
export const NEGATED_OPS: ReadonlySet<string> = new Set(["unset", "is-not"]);

/**
 * A query of subscriber_values narrowed to the values a condition names — for a negated one
 * (unset, is-not), the values of its opposite (set, is).
 */
export function valuesMatching<Q extends SelectQueryBuilder<Database, "subscriber_values", object>>(
  query: Q,
  condition: FieldCondition,
  numberFields: ReadonlySet<string>,
): Q {
  const values = query.where("subscriber_values.field_key", "=", condition.key) as Q;
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

/** Text a SQL CAST to NUMERIC takes on both databases (what numberText gives). */
export const isNumberText = (text: string) =>
  /^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(text) && Number.isFinite(Number(text));

/** The day after YYYY-MM-DD, as the same text: "signed up before" includes its own day. */
const nextDay = (text: string) =>
  new Date(Date.parse(`${text}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/**
 * A rule as a condition on `subscribers`. `numberFields` are the keys of number fields, compared as
 * numbers rather than text. Its subqueries name no tenant: the database bound to the tenant that
 * runs the whole query binds them too (decision 035), as it does the campaign queue's
 * (server/campaigns/recipients.ts) and the segment counts.
 */
export function segmentCondition(
  eb: SubscriberScope,
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
