import { sql } from "kysely";
import type { Db } from "../db";
import type { NewsletterViewSourcesTable } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import { getLogger } from "../logger";
import type { TenantScope } from "../scope";

/**
 * Where a newsletter's readers came from (issue 36, target 3; decision 047): each view of the page
 * is put under one source as it is counted, from the address's utm_source and the Referer's host
 * only. No cookie is read or set, no address or full referrer is kept: a day, a source and, for
 * other sites, their host. The counts are added up in memory and written in batches (one
 * transaction a tenant, every FLUSH_MS or MAX_PENDING views), so a view costs no more writes.
 */
export type ViewSource = NewsletterViewSourcesTable["source"];

export const VIEW_SOURCES: readonly ViewSource[] = [
  "email",
  "linkedin",
  "other",
  "direct",
  "internal",
];

export const SOURCE_LABELS: Record<ViewSource, string> = {
  email: "Email",
  linkedin: "LinkedIn",
  other: "Other sites",
  direct: "Direct",
  internal: "From this site",
};

export interface ClassifiedView {
  source: ViewSource;
  /** the referring site's host for "other"; '' otherwise */
  host: string;
}

/** What a request tells about its origin: nothing else is read. */
export interface ViewOrigin {
  utmSource: string | null;
  utmMedium: string | null;
  referer: string | null;
  /** the host the page was asked for (a referrer from it is the site itself) */
  ownHost: string;
}

const LINKEDIN_SOURCES = new Set(["linkedin", "lnkd", "lnkd.in", "linkedin.com"]);
const EMAIL_SOURCES = new Set(["email", "e-mail", "newsletter", "mail"]);
const HOST = /^[a-z0-9.-]{1,253}$/;

function bareHost(host: string): string {
  return host
    .toLowerCase()
    .replace(/:\d+$/, "")
    .replace(/^www\./, "");
}

function isLinkedInHost(host: string): boolean {
  return host === "lnkd.in" || host === "linkedin.com" || host.endsWith(".linkedin.com");
}

/** The one source of a view: utm_source first, then the Referer's host, else Direct. */
export function classifyView(origin: ViewOrigin): ClassifiedView {
  const utmSource = origin.utmSource?.trim().toLowerCase() ?? "";
  const utmMedium = origin.utmMedium?.trim().toLowerCase() ?? "";
  if (LINKEDIN_SOURCES.has(utmSource)) return { source: "linkedin", host: "" };
  if (EMAIL_SOURCES.has(utmSource) || (!utmSource && utmMedium === "email")) {
    return { source: "email", host: "" };
  }
  const referer = origin.referer?.trim() ?? "";
  if (!referer) return { source: "direct", host: "" };
  // The LinkedIn app on Android sends android-app://com.linkedin.android/
  if (referer.startsWith("android-app://com.linkedin.")) return { source: "linkedin", host: "" };
  let host: string;
  try {
    const url = new URL(referer);
    if (url.protocol !== "http:" && url.protocol !== "https:")
      return { source: "direct", host: "" };
    host = bareHost(url.hostname);
  } catch {
    return { source: "direct", host: "" };
  }
  if (!HOST.test(host)) return { source: "direct", host: "" };
  if (host === bareHost(origin.ownHost)) return { source: "internal", host: "" };
  if (isLinkedInHost(host)) return { source: "linkedin", host: "" };
  return { source: "other", host };
}

/** The origin of a request to a newsletter page, from its URL's query and headers. */
export function viewOriginOf(
  query: URLSearchParams,
  headers: { referer: string | null; host: string | null },
): ViewOrigin {
  return {
    utmSource: query.get("utm_source"),
    utmMedium: query.get("utm_medium"),
    referer: headers.referer,
    ownHost: headers.host ?? "",
  };
}

// --- the batch -------------------------------------------------------------------------------

const FLUSH_MS = 1000;
const MAX_PENDING = 500;
const SEP = "\u0000";

/** Views waiting to be written: per database, "tenant\0newsletter\0day\0source\0host" → views. */
const pending = new Map<Db, Map<string, number>>();
let pendingViews = 0;
let timer: NodeJS.Timeout | undefined;
let flushing: Promise<void> = Promise.resolve();

/** Counts one view of `newsletterId` under its source; written within FLUSH_MS. */
export function noteViewSource(
  db: Db,
  tenantId: string,
  newsletterId: string,
  view: ClassifiedView,
  now = new Date(),
): void {
  const day = now.toISOString().slice(0, 10);
  const key = [tenantId, newsletterId, day, view.source, view.host].join(SEP);
  let counts = pending.get(db);
  if (!counts) {
    counts = new Map();
    pending.set(db, counts);
  }
  counts.set(key, (counts.get(key) ?? 0) + 1);
  pendingViews += 1;
  if (pendingViews >= MAX_PENDING) {
    void flushViewSources();
  } else if (!timer) {
    timer = setTimeout(() => void flushViewSources(), FLUSH_MS);
    timer.unref();
  }
}

/** Writes every view counted so far (and waits for a write under way). */
export function flushViewSources(): Promise<void> {
  if (timer) clearTimeout(timer);
  timer = undefined;
  const batch = [...pending.entries()];
  pending.clear();
  pendingViews = 0;
  flushing = flushing.then(() => writeBatch(batch));
  return flushing;
}

async function writeBatch(batch: [Db, Map<string, number>][]): Promise<void> {
  for (const [db, counts] of batch) {
    const byTenant = new Map<string, [string[], number][]>();
    for (const [key, views] of counts) {
      const parts = key.split(SEP);
      const tenantId = parts[0] ?? "";
      byTenant.set(tenantId, [...(byTenant.get(tenantId) ?? []), [parts, views]]);
    }
    for (const [tenantId, rows] of byTenant) {
      try {
        await tenantDb(db, tenantId)
          .transaction()
          .execute(async (trx) => {
            for (const [[, newsletterId = "", day = "", source = "", host = ""], views] of rows) {
              await trx
                .insertInto("newsletter_view_sources")
                .values({
                  tenant_id: tenantId,
                  newsletter_id: newsletterId,
                  day,
                  source: source as ViewSource,
                  host,
                  views,
                })
                .onConflict((oc) =>
                  oc.columns(["tenant_id", "newsletter_id", "day", "source", "host"]).doUpdateSet({
                    views: sql<number>`${sql.ref("newsletter_view_sources.views")} + ${sql.ref("excluded.views")}`,
                  }),
                )
                .execute();
            }
          });
      } catch (error) {
        // Statistics, not records: a batch that cannot be written (a newsletter deleted since) is
        // logged and let go rather than kept growing.
        getLogger().warn(
          { err: { message: (error as Error).message }, tenantId },
          "newsletter view sources not written",
        );
      }
    }
  }
}

export interface SourceCount {
  source: ViewSource;
  label: string;
  views: number;
}

export interface ViewSources {
  total: number;
  sources: SourceCount[];
  /** the other sites, most views first (at most 10) */
  hosts: { host: string; views: number }[];
}

/** A newsletter's views by source since it was published (this instance's batch written first). */
export async function viewSourcesOf(ctx: TenantScope, newsletterId: string): Promise<ViewSources> {
  await flushViewSources();
  const rows = await tenantDb(ctx.db, ctx.tenantId)
    .selectFrom("newsletter_view_sources")
    .select(["source", "host", (eb) => eb.fn.sum<number>("views").as("views")])
    .where("newsletter_id", "=", newsletterId)
    .groupBy(["source", "host"])
    .execute();
  const bySource = new Map<ViewSource, number>();
  const hosts: { host: string; views: number }[] = [];
  for (const row of rows) {
    const views = Number(row.views);
    bySource.set(row.source, (bySource.get(row.source) ?? 0) + views);
    if (row.source === "other" && row.host) hosts.push({ host: row.host, views });
  }
  hosts.sort((a, b) => b.views - a.views || a.host.localeCompare(b.host));
  const sources = VIEW_SOURCES.map((source) => ({
    source,
    label: SOURCE_LABELS[source],
    views: bySource.get(source) ?? 0,
  }));
  return {
    total: sources.reduce((sum, row) => sum + row.views, 0),
    sources,
    hosts: hosts.slice(0, 10),
  };
}

/** Adds utm_source=email&utm_medium=email to a link to the tenant's own newsletter page. */
export function withEmailSource(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.searchParams.has("utm_source")) return url;
    parsed.searchParams.set("utm_source", "email");
    parsed.searchParams.set("utm_medium", "email");
    return parsed.toString();
  } catch {
    return url;
  }
}
