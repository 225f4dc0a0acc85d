import { tenantDb } from "../db/tenant-guard";
import type { Scope } from "../scope";
import { listPublishedNewsletters } from "./listing";
import { listPublishedTags, tagsOfNewsletters } from "./tags";

/** Machine-readable views of a tenant's public site: the RSS feed, the sitemap and robots.txt. */
type SiteScope = Pick<Scope, "db" | "tenantId" | "origin">;

export const FEED_SIZE = 20;

/** The public pages every tenant's site has (SPEC §2). */
export const PUBLIC_PAGES = [
  "/",
  "/about",
  "/services",
  "/products",
  "/contact",
  "/newsletter",
  "/privacy",
  "/terms",
] as const;

// XML 1.0 allows tab, newline and carriage return, but no other control characters.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to remove them
const XML_INVALID = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
const XML_ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};

export function escapeXml(text: string): string {
  return text.replace(XML_INVALID, "").replace(/[&<>"']/g, (char) => XML_ENTITIES[char] ?? char);
}

/** RFC 822 date, as RSS 2.0 wants it: "Sun, 22 Nov 2026 09:30:00 GMT". */
export function rfc822(iso: string): string {
  return new Date(iso).toUTCString();
}

/** RSS 2.0 feed of the tenant's latest published newsletters, newest first. */
export async function renderNewsletterFeed(
  ctx: SiteScope,
  channel: { title: string; description: string },
): Promise<string> {
  const { items } = await listPublishedNewsletters(ctx, { page: 1, pageSize: FEED_SIZE });
  const tags = await tagsOfNewsletters(
    ctx,
    items.map((item) => item.id),
  );
  const home = `${ctx.origin}/newsletter`;
  const newest = items[0];
  const entries = items.map((newsletter) => {
    const link = `${home}/${encodeURIComponent(newsletter.slug)}`;
    // The guid stays what it was before slugs (the id's address, which still leads to the
    // article), so feed readers do not see every issue again.
    const guid = `${home}/${encodeURIComponent(newsletter.id)}`;
    return [
      "    <item>",
      `      <title>${escapeXml(newsletter.title)}</title>`,
      `      <link>${escapeXml(link)}</link>`,
      `      <guid isPermaLink="true">${escapeXml(guid)}</guid>`,
      `      <pubDate>${rfc822(newsletter.date)}</pubDate>`,
      `      <description>${escapeXml(newsletter.excerpt)}</description>`,
      ...(tags.get(newsletter.id) ?? []).map(
        (tag) => `      <category>${escapeXml(tag.name)}</category>`,
      ),
      "    </item>",
    ].join("\n");
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">',
    "  <channel>",
    `    <title>${escapeXml(channel.title)}</title>`,
    `    <link>${escapeXml(home)}</link>`,
    `    <description>${escapeXml(channel.description)}</description>`,
    "    <language>en-us</language>",
    `    <atom:link href="${escapeXml(`${home}/rss.xml`)}" rel="self" type="application/rss+xml"/>`,
    ...(newest ? [`    <lastBuildDate>${rfc822(newest.date)}</lastBuildDate>`] : []),
    ...entries,
    "  </channel>",
    "</rss>",
    "",
  ].join("\n");
}

/** The public pages and every published newsletter of the tenant (sitemaps.org protocol). */
export async function renderSitemap(ctx: SiteScope): Promise<string> {
  const db = tenantDb(ctx.db, ctx.tenantId);
  // A sitemap holds at most 50,000 URLs: newsletters and tags share them (a weekly newsletter
  // will not get near that).
  const newsletters = await db
    .selectFrom("newsletters")
    .select(["id", "slug", "updated_at"])
    .where("status", "=", "published")
    .orderBy("published_at", "desc")
    .orderBy("id", "desc")
    .limit(45_000)
    .execute();
  const tags = await listPublishedTags(ctx);
  const url = (path: string, lastmod?: string) =>
    [
      "  <url>",
      `    <loc>${escapeXml(`${ctx.origin}${path}`)}</loc>`,
      ...(lastmod ? [`    <lastmod>${escapeXml(lastmod)}</lastmod>`] : []),
      "  </url>",
    ].join("\n");
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ...PUBLIC_PAGES.map((path) => url(path)),
    ...tags.slice(0, 5_000 - PUBLIC_PAGES.length).map((tag) => url(`/newsletter/tag/${tag.slug}`)),
    ...newsletters.map((row) =>
      url(
        `/newsletter/${encodeURIComponent(row.slug ?? row.id)}`,
        new Date(row.updated_at).toISOString(),
      ),
    ),
    "</urlset>",
    "",
  ].join("\n");
}

/** Crawlers may read everything public; the admin area and personal subscription pages are not. */
export function renderRobotsTxt(origin: string): string {
  return [
    "User-agent: *",
    "Allow: /",
    "Disallow: /admin/",
    "Disallow: /subscription/",
    "Disallow: /preferences",
    "Disallow: /unsubscribe",
    "",
    `Sitemap: ${origin}/sitemap.xml`,
    "",
  ].join("\n");
}
