import { type SelectQueryBuilder, sql } from "kysely";
import { preparedQuery } from "../db/prepared";
import type { Database, NewsletterRow, NewsletterStatus } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import type { TenantScope } from "../scope";
import {
  LIST_COLUMNS,
  type Newsletter,
  type NewsletterListItem,
  type NewsletterSummary,
  SUMMARY_COLUMNS,
  type SummaryRow,
  toListItem,
  toNewsletter,
  toSummary,
} from "./model";

/* Newsletters found: one by id or slug, and the pages of them staff and readers go through. */

/** Any newsletter of the tenant, draft or published (staff view). */
export async function getNewsletter(ctx: TenantScope, id: string): Promise<Newsletter | null> {
  const row = await tenantDb(ctx.db, ctx.tenantId)
    .selectFrom("newsletters")
    .selectAll()
    .where("id", "=", id)
    .executeTakeFirst();
  return row ? toNewsletter(row) : null;
}

/** The published newsletter at /newsletter/{slug}, or null (a draft or another tenant's is "not found"). */
export async function getPublishedNewsletterBySlug(
  ctx: TenantScope,
  slug: string,
): Promise<Newsletter | null> {
  const [row] = await publishedBySlug(tenantDb(ctx.db, ctx.tenantId), { slug });
  return row ? toNewsletter(row) : null;
}

// A newsletter's page reads it by slug on every render (compiled once per tenant's database).
const publishedBySlug = preparedQuery<"slug", NewsletterRow>((db, value) =>
  db
    .selectFrom("newsletters")
    .selectAll()
    .where("slug", "=", value("slug"))
    .where("status", "=", "published"),
);

export interface NewsletterFilter {
  status?: NewsletterStatus;
  search?: string;
}

/** How many newsletter cards a staff page shows at once. */
export const STAFF_PAGE_SIZE = 24;

/**
 * The tenant's newsletters for staff, newest change first, one page at a time (page 1 is the
 * first), and how many match in all: a tenant with years of issues must not render them all.
 */
export async function listNewsletters(
  ctx: TenantScope,
  filter: NewsletterFilter = {},
  page: { page: number; pageSize: number } = { page: 1, pageSize: STAFF_PAGE_SIZE },
): Promise<{ items: NewsletterSummary[]; total: number }> {
  const db = tenantDb(ctx.db, ctx.tenantId);
  const search = filter.search?.trim();
  if (!filter.status && !search) {
    // The dashboard as it opens: the same two queries on every load, prepared once.
    const [items, counted] = await Promise.all([
      staffPage(db, {
        limit: page.pageSize,
        offset: (page.page - 1) * page.pageSize,
      }),
      staffCount(db, {}),
    ]);
    return { items: items.map(toSummary), total: Number(counted[0]?.total ?? 0) };
  }
  let base = db.selectFrom("newsletters");
  if (filter.status) base = base.where("status", "=", filter.status);
  if (search) {
    const pattern = `%${search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    base = base.where(sql<boolean>`lower(title) like ${pattern} escape '\\'`);
  }
  const { rows, total } = newestFirstPage(base, "updated_at", page);
  const [items, count] = await Promise.all([rows.select(SUMMARY_COLUMNS).execute(), total]);
  return { items: items.map(toSummary), total: count };
}

/** `base` as one page, newest first by `newest`, for the caller's columns; and how many in all. */
function newestFirstPage(
  base: SelectQueryBuilder<Database, "newsletters", object>,
  newest: "updated_at" | "published_at",
  page: { page: number; pageSize: number },
) {
  return {
    rows: newestFirst(base, newest, page.pageSize, (page.page - 1) * page.pageSize),
    total: countOf(base)
      .executeTakeFirst()
      .then((counted) => Number(counted?.total ?? 0)),
  };
}

function newestFirst(
  base: SelectQueryBuilder<Database, "newsletters", object>,
  newest: "updated_at" | "published_at",
  limit: number,
  offset: number,
) {
  return base.orderBy(newest, "desc").orderBy("id", "desc").limit(limit).offset(offset);
}

function countOf(base: SelectQueryBuilder<Database, "newsletters", object>) {
  return base.select((eb) => eb.fn.countAll<number>().as("total"));
}

const staffPage = preparedQuery<"limit" | "offset", SummaryRow>((db, value) =>
  newestFirst(db.selectFrom("newsletters"), "updated_at", value("limit"), value("offset")).select(
    SUMMARY_COLUMNS,
  ),
);

const staffCount = preparedQuery<never, { total: number }>((db) =>
  countOf(db.selectFrom("newsletters")),
);

const newestPublishedRow = preparedQuery((db) =>
  newestFirst(
    db.selectFrom("newsletters").where("status", "=", "published"),
    "published_at",
    1,
    0,
  ).select(LIST_COLUMNS),
);

/** The newest published newsletter (the home page's hero): one prepared query, no count. */
export async function newestPublishedNewsletter(
  ctx: TenantScope,
): Promise<NewsletterListItem | null> {
  const [row] = await newestPublishedRow(tenantDb(ctx.db, ctx.tenantId), {});
  return row ? toListItem(row) : null;
}

/** Published newsletters, newest first, one page at a time: all, or those of a tag or a year. */
export async function listPublishedNewsletters(
  ctx: TenantScope,
  page: { page: number; pageSize: number; tag?: string; year?: number },
): Promise<{ items: NewsletterListItem[]; total: number }> {
  let base = tenantDb(ctx.db, ctx.tenantId)
    .selectFrom("newsletters")
    .where("status", "=", "published");
  if (page.tag !== undefined) {
    const tag = page.tag;
    base = base.where("id", "in", (eb) =>
      eb
        .selectFrom("newsletter_tags")
        .select("newsletter_id")
        .where("newsletter_tags.tag_slug", "=", tag),
    );
  }
  if (page.year !== undefined) {
    // ISO strings order as times do: the year is a range, so the index on published_at serves it.
    base = base
      .where("published_at", ">=", `${String(page.year).padStart(4, "0")}-01-01`)
      .where("published_at", "<", `${String(page.year + 1).padStart(4, "0")}-01-01`);
  }
  const { rows, total } = newestFirstPage(base, "published_at", page);
  const [items, count] = await Promise.all([rows.select(LIST_COLUMNS).execute(), total]);
  return { items: items.map(toListItem), total: count };
}

/** The years with published newsletters, newest first, with how many each has. */
export async function listPublishedYears(
  ctx: TenantScope,
): Promise<{ year: number; count: number }[]> {
  const year = sql<string>`substr(published_at, 1, 4)`;
  const rows = await tenantDb(ctx.db, ctx.tenantId)
    .selectFrom("newsletters")
    .select([year.as("year"), (eb) => eb.fn.countAll<number>().as("count")])
    .where("status", "=", "published")
    .groupBy(year)
    .orderBy(year, "desc")
    .execute();
  return rows.map((row) => ({ year: Number(row.year), count: Number(row.count) }));
}
