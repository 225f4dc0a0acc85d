import { type Expression, type ExpressionBuilder, type SqlBool, sql } from "kysely";
import { z } from "zod";
import { SUBSCRIBER_STATUSES } from "../../shared/schemas/subscribers";
import { isPostgres, likePattern } from "../db/portable";
import type { Database, SubscriberStatus } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import type { Scope } from "../scope";
import { audienceCounts, sumOf } from "./counts";
import { listTenantLists } from "./lists";
import { listKeysBySubscriber, type SubscriberView } from "./subscribers";

/**
 * Staff finding subscribers (/admin/subscribers): the search form's filter, a page of matches with
 * their count, the selection a bulk action works on, and the counts per list and status. Every
 * query runs on the database bound to the tenant, which adds its tenant conditions.
 */
type AdminScope = Pick<Scope, "db" | "tenant">;

export type StatusFilter = SubscriberStatus | "all";

export interface SubscriberFilter {
  /** part of the email or the name, case-insensitive */
  q?: string;
  status?: StatusFilter;
  /** a list key: only subscribers on that list */
  list?: string;
  /** only these subscribers (the rows ticked for a bulk action) */
  ids?: readonly number[];
}

const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === "" ? undefined : value), schema.optional()).catch(undefined);

const filterSchema = z.object({
  q: optional(z.string().trim().max(200)),
  status: optional(z.enum(["all", ...SUBSCRIBER_STATUSES])),
  list: optional(z.string().trim().max(100)),
  page: optional(z.coerce.number().int().min(1).max(1_000_000)),
  /** ticked rows of a bulk export: ids separated by commas */
  ids: optional(
    z
      .string()
      .max(10_000)
      .regex(/^\d+(,\d+)*$/)
      .transform((text) => text.split(",").slice(0, 500).map(Number)),
  ),
});

/** The search form's query (q, status, list, page); anything malformed is ignored. */
export function subscriberFilterFrom(params: URLSearchParams): SubscriberFilter & { page: number } {
  const filter = filterSchema.parse(Object.fromEntries(params));
  return {
    q: filter.q,
    status: filter.status ?? "all",
    list: filter.list,
    page: filter.page ?? 1,
    ...(filter.ids ? { ids: filter.ids } : {}),
  };
}

export const SUBSCRIBERS_PAGE_SIZE = 50;

/** A search's count stops here: past it the page says "10,000+" rather than count every row. */
export const SEARCH_COUNT_CAP = 10_000;
/** Trigram matches of a column beyond which a search reads subscribers in order instead. */
const SEARCH_CANDIDATES = 5_000;

type SubscriberCondition = (eb: ExpressionBuilder<Database, "subscribers">) => Expression<SqlBool>;

/**
 * The search condition for `q` (part of the email or name). PostgreSQL's planner picks between
 * the trigram indexes and reading newest first. SQLite's does not know how many rows a trigram
 * matches, so this asks the trigram index (subscriber_search) first: few matches become an id
 * list; many mean the term is common, and reading newest first finds a page at once.
 */
async function searchCondition(ctx: AdminScope, q: string): Promise<SubscriberCondition> {
  const pattern = likePattern(q);
  const scan: SubscriberCondition = (eb) =>
    eb.or([
      sql<SqlBool>`lower(subscribers.email) like ${pattern} escape '\\'`,
      sql<SqlBool>`lower(subscribers.name) like ${pattern} escape '\\'`,
    ]);
  // Under three characters there is no trigram; wildcards in the text need the escape above.
  if (isPostgres(ctx.db) || q.length < 3 || /[\\%_]/.test(q)) return scan;
  const ids = new Set<number>();
  for (const column of ["email", "name"] as const) {
    const { rows } = await sql<{ id: number }>`SELECT rowid AS id FROM subscriber_search
      WHERE ${sql.ref(column)} LIKE ${`%${q}%`} LIMIT ${SEARCH_CANDIDATES + 1}`.execute(ctx.db);
    if (rows.length > SEARCH_CANDIDATES) return scan;
    for (const row of rows) ids.add(Number(row.id));
  }
  const matched = [...ids];
  // The candidates are every tenant's: the id list only narrows, the bound database's tenant
  // condition still holds.
  return (eb) => (matched.length > 0 ? eb("subscribers.id", "in", matched) : sql<SqlBool>`1 = 0`);
}

/** The list a filter names, as its id; null: no such list in this tenant. */
async function listIdOf(ctx: AdminScope, key: string): Promise<number | null> {
  const lists = await listTenantLists(ctx.db, ctx.tenant);
  return lists.find((list) => list.key === key)?.id ?? null;
}

export async function filteredSubscribers(ctx: AdminScope, filter: SubscriberFilter) {
  let query = tenantDb(ctx.db, ctx.tenant.id)
    .selectFrom("subscribers")
    .where("subscribers.erased_at", "is", null);
  if (filter.ids)
    query = query.where("subscribers.id", "in", filter.ids.length ? filter.ids : [-1]);
  if (filter.status && filter.status !== "all") {
    query = query.where("subscribers.status", "=", filter.status);
  }
  const q = filter.q?.trim();
  if (q) query = query.where(await searchCondition(ctx, q));
  if (filter.list) {
    const listId = await listIdOf(ctx, filter.list);
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom("subscriptions")
          .select(sql`1`.as("one"))
          .whereRef("subscriptions.subscriber_id", "=", "subscribers.id")
          .where("subscriptions.list_id", "=", listId ?? -1),
      ),
    );
  }
  return query;
}

/** The ids a bulk action works on: every subscriber matching the filter (issue 16, point 2). */
export async function selectedSubscriberIds(
  ctx: AdminScope,
  filter: SubscriberFilter,
): Promise<number[]> {
  const rows = await (await filteredSubscribers(ctx, filter)).select("subscribers.id").execute();
  return rows.map((row) => Number(row.id));
}

export const SUBSCRIBER_COLUMNS = [
  "subscribers.id",
  "subscribers.email",
  "subscribers.name",
  "subscribers.status",
  "subscribers.subscribed_at",
] as const;

/**
 * How many subscribers match: from the kept counts when the filter is a list and a status, else
 * counted — up to SEARCH_COUNT_CAP + 1, so `capped` says "at least".
 */
async function countMatching(
  ctx: AdminScope,
  filter: SubscriberFilter,
): Promise<{ total: number; capped: boolean }> {
  if (!filter.q?.trim() && !filter.ids) {
    const counts = await audienceCounts(ctx.db, ctx.tenant.id);
    const listId = filter.list ? await listIdOf(ctx, filter.list) : 0;
    const statuses = filter.status && filter.status !== "all" ? [filter.status] : [];
    if (listId === null) return { total: 0, capped: false };
    const of = listId === 0 ? counts.all : counts.lists.get(listId);
    return { total: of ? sumOf(of, statuses) : 0, capped: false };
  }
  const matching = (await filteredSubscribers(ctx, filter))
    .select("subscribers.id")
    .limit(SEARCH_COUNT_CAP + 1);
  const { count } = await tenantDb(ctx.db, ctx.tenant.id)
    .selectFrom(matching.as("matching"))
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .executeTakeFirstOrThrow();
  const total = Number(count);
  return total > SEARCH_COUNT_CAP
    ? { total: SEARCH_COUNT_CAP, capped: true }
    : { total, capped: false };
}

/** One page of the tenant's subscribers matching `filter`, newest first. */
export async function listSubscribers(
  ctx: AdminScope,
  filter: SubscriberFilter,
  page = 1,
  pageSize = SUBSCRIBERS_PAGE_SIZE,
): Promise<{
  items: SubscriberView[];
  total: number;
  /** more than `total` match: a search counts up to SEARCH_COUNT_CAP */
  capped: boolean;
  page: number;
  pageCount: number;
}> {
  const { total, capped } = await countMatching(ctx, filter);
  const pageCount = Math.max(1, Math.ceil(total / pageSize));
  const rows = await (await filteredSubscribers(ctx, filter))
    .select(SUBSCRIBER_COLUMNS)
    // Ids grow with each new subscriber: newest first, read straight from an index.
    .orderBy("subscribers.id", "desc")
    .limit(pageSize)
    .offset((page - 1) * pageSize)
    .execute();
  const lists = await listKeysBySubscriber(
    ctx,
    rows.map((row) => row.id),
  );
  return {
    items: rows.map((row) => ({
      id: row.id,
      email: row.email,
      name: row.name,
      status: row.status,
      subscribedAt: row.subscribed_at,
      lists: lists.get(row.id) ?? [],
    })),
    total,
    capped,
    page,
    pageCount,
  };
}

/** The tenant's lists with the number of active subscribers on each. */
export async function countByList(
  ctx: AdminScope,
): Promise<{ key: string; name: string; active: number }[]> {
  const [lists, counts] = await Promise.all([
    listTenantLists(ctx.db, ctx.tenant),
    audienceCounts(ctx.db, ctx.tenant.id),
  ]);
  return lists.map((list) => ({
    key: list.key,
    name: list.name,
    active: counts.lists.get(list.id)?.active ?? 0,
  }));
}

/** How many of the tenant's subscribers are in each status, and in all. */
export async function countByStatus(
  ctx: AdminScope,
): Promise<Record<SubscriberStatus, number> & { total: number }> {
  const { all } = await audienceCounts(ctx.db, ctx.tenant.id);
  return { ...all, total: sumOf(all) };
}
