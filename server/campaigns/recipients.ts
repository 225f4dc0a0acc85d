import { type SqlBool, sql } from "kysely";
import type { SegmentRule } from "../../shared/schemas/segment";
import type { Db } from "../db";
import { tenantDb } from "../db/tenant-guard";
import { segmentCondition } from "../subscribers/segment-sql";
import { unopenedSubscribers } from "./recipient-activity";

/*
 * Who a campaign goes to (its lists and segments): the review step's count, and the rows
 * deliveries.ts queues when the campaign starts. Reads only.
 */

/** Who a campaign goes to: the active subscribers on any of its lists or in any of its segments. */
export interface Audience {
  listIds: readonly number[];
  segments: readonly SegmentRule[];
  /** the tenant's number fields, which segments compare as numbers */
  numberFields: ReadonlySet<string>;
  /** "Send to those who did not open": only that campaign's unopened recipients (recipient-activity.ts) */
  unopenedOf?: string | null;
}

/**
 * A campaign's recipients: the tenant's active subscribers on any of the audience's lists or in
 * any of its segments. Unsubscribed, bounced, complained and erased addresses are not active, so
 * they are never among them, whatever a segment says.
 */
export function recipientsOf(root: Db, tenantId: string, audience: Audience) {
  const { listIds, segments, numberFields, unopenedOf } = audience;
  const db = tenantDb(root, tenantId);
  const query = db
    .selectFrom("subscribers")
    .where("subscribers.status", "=", "active")
    .where((eb) =>
      eb.or([
        ...(listIds.length > 0
          ? [
              eb.exists(
                eb
                  .selectFrom("subscriptions")
                  .select(sql`1`.as("one"))
                  .whereRef("subscriptions.subscriber_id", "=", "subscribers.id")
                  .where("subscriptions.list_id", "in", listIds),
              ),
            ]
          : []),
        ...segments.map((rule) => segmentCondition(eb, rule, numberFields)),
        // an empty audience reaches nobody
        sql<SqlBool>`1 = 0`,
      ]),
    );
  return unopenedOf
    ? query.where("subscribers.id", "in", unopenedSubscribers(db, tenantId, unopenedOf))
    : query;
}

/** How many would receive a campaign to `audience` now (the review step's "Send to N"). */
export async function countRecipients(
  db: Db,
  tenantId: string,
  audience: Audience,
): Promise<number> {
  const { total } = await recipientsOf(db, tenantId, audience)
    .select((eb) => eb.fn.countAll<number>().as("total"))
    .executeTakeFirstOrThrow();
  return Number(total);
}
