import type { MetaDescriptor } from "react-router";
import type { RootData } from "../root";

interface PageInfo {
  title: string;
  description: string;
  /** page N (> 1) of a list: its canonical URL keeps ?page=N */
  page?: number;
  /** the share card (1200×630); the tenant's branded card when not given */
  image?: { url: string; alt: string };
}

/** Share cards are made at the size LinkedIn, X and Facebook show large. */
export const SHARE_CARD = { width: 1200, height: 630 } as const;

interface MetaArgs {
  matches: ReadonlyArray<{ id: string; loaderData?: unknown } | undefined>;
  location: { pathname: string };
}

/** Title, description, canonical URL and Open Graph / Twitter tags for a page of this tenant. */
export function pageMeta({ matches, location }: MetaArgs, page: PageInfo): MetaDescriptor[] {
  const root = matches.find((match) => match?.id === "root")?.loaderData as RootData | undefined;
  const siteName = root?.tenant.companyName ?? "Herald";
  const title =
    location.pathname === "/" ? `${siteName} — ${page.title}` : `${page.title} | ${siteName}`;
  const origin = root?.origin ?? "";
  const url = `${origin}${location.pathname}${page.page && page.page > 1 ? `?page=${page.page}` : ""}`;
  const image = page.image ?? { url: `${origin}/brand/share-card`, alt: siteName };
  return [
    { title },
    { name: "description", content: page.description },
    { tagName: "link", rel: "canonical", href: url },
    { property: "og:type", content: "website" },
    { property: "og:site_name", content: siteName },
    { property: "og:title", content: page.title },
    { property: "og:description", content: page.description },
    { property: "og:url", content: url },
    { property: "og:image", content: image.url },
    { property: "og:image:width", content: String(SHARE_CARD.width) },
    { property: "og:image:height", content: String(SHARE_CARD.height) },
    { property: "og:image:alt", content: image.alt },
    { name: "twitter:card", content: "summary_large_image" },
    { name: "twitter:title", content: page.title },
    { name: "twitter:description", content: page.description },
    { name: "twitter:image", content: image.url },
    { name: "twitter:image:alt", content: image.alt },
  ];
}

/** A page kept out of search engines (staff pages, personal links): its title and `noindex`. */
export function noindexMeta(title: string): MetaDescriptor[] {
  return [{ title }, { name: "robots", content: "noindex" }];
}

/** The RSS feed's link, on the reading room's pages. */
export const FEED_LINK: MetaDescriptor = {
  tagName: "link",
  rel: "alternate",
  type: "application/rss+xml",
  title: "Newsletter RSS feed",
  href: "/newsletter/rss.xml",
};

/**
 * A list page of the reading room (the archive, a tag, a year): its pageMeta with " — page N" after
 * the title past the first page, and the feed's link.
 */
export function archiveListMeta(
  args: MetaArgs,
  list: { title: string; description: string; page: number },
): MetaDescriptor[] {
  const title = list.page > 1 ? `${list.title} — page ${list.page}` : list.title;
  return [...pageMeta(args, { ...list, title }), FEED_LINK];
}

interface ArticleInfo {
  title: string;
  excerpt: string;
  date: string;
  updatedAt: string;
  author: string | null;
  tags: { name: string }[];
  /** absolute URL of its share card (from the cover, or the tenant's branding) */
  shareCard: string;
  cover: { alt: string } | null;
}

/**
 * A newsletter's page: pageMeta with og:type article, its times, tags and share card, the feed, and
 * JSON-LD `Article` (issue 15, part 4) for search engines.
 */
export function articleMeta(args: MetaArgs, article: ArticleInfo): MetaDescriptor[] {
  const root = args.matches.find((match) => match?.id === "root")?.loaderData as
    | RootData
    | undefined;
  const publisher = root?.tenant.companyName ?? "Herald";
  const tags = pageMeta(args, {
    title: article.title,
    description: article.excerpt,
    image: { url: article.shareCard, alt: article.cover?.alt || article.title },
  });
  const url = `${root?.origin ?? ""}${args.location.pathname}`;
  return [
    ...tags.map((tag) =>
      "property" in tag && tag.property === "og:type"
        ? { property: "og:type", content: "article" }
        : tag,
    ),
    { property: "article:published_time", content: article.date },
    { property: "article:modified_time", content: article.updatedAt },
    ...article.tags.map((tag) => ({ property: "article:tag", content: tag.name })),
    FEED_LINK,
    {
      "script:ld+json": {
        "@context": "https://schema.org",
        "@type": "Article",
        headline: article.title.slice(0, 110),
        description: article.excerpt,
        image: [article.shareCard],
        datePublished: article.date,
        dateModified: article.updatedAt,
        author: article.author
          ? { "@type": "Person", name: article.author }
          : { "@type": "Organization", name: publisher },
        publisher: { "@type": "Organization", name: publisher },
        mainEntityOfPage: url,
        ...(article.tags.length > 0 ? { keywords: article.tags.map((tag) => tag.name) } : {}),
      },
    },
  ];
}
