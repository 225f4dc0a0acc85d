import { findImagesByUrl, type Picture, pictureOf } from "../files/stored-images";
import type { TenantScope } from "../scope";
import { listPublishedNewsletters, listPublishedYears } from "./listing";
import type { NewsletterListItem } from "./model";
import { listPublishedTags, type Tag, type TagCount, tagsOfNewsletters } from "./tags";

/*
 * The reading room's lists (issue 15, part 2): the archive, a tag's page and a year's page share
 * one shape — a page of issues, newest first, with the tags and years to browse by.
 */

export const ARCHIVE_PAGE_SIZE = 10;

/** A newsletter as a list shows it. */
export interface IssueSummary {
  id: string;
  slug: string;
  title: string;
  excerpt: string;
  date: string;
  readTime: number;
  tags: Tag[];
  cover: (Picture & { alt: string }) | null;
}

export interface ArchivePage {
  newsletters: IssueSummary[];
  page: number;
  pageCount: number;
  total: number;
  tags: TagCount[];
  years: { year: number; count: number }[];
}

export async function readArchive(
  ctx: TenantScope,
  options: { page: number; tag?: string; year?: number },
): Promise<ArchivePage> {
  const { items, total } = await listPublishedNewsletters(ctx, {
    ...options,
    pageSize: ARCHIVE_PAGE_SIZE,
  });
  const [tags, years, newsletters] = await Promise.all([
    listPublishedTags(ctx),
    listPublishedYears(ctx),
    summarize(ctx, items),
  ]);
  return {
    newsletters,
    page: options.page,
    pageCount: Math.max(1, Math.ceil(total / ARCHIVE_PAGE_SIZE)),
    total,
    tags,
    years,
  };
}

/** Newsletters as lists show them: with their tags and cover pictures. */
export async function summarize(
  ctx: TenantScope,
  items: NewsletterListItem[],
): Promise<IssueSummary[]> {
  const [tags, covers] = await Promise.all([
    tagsOfNewsletters(
      ctx,
      items.map((item) => item.id),
    ),
    findImagesByUrl(
      ctx.db,
      ctx.tenantId,
      items.flatMap((item) => (item.coverImage ? [item.coverImage] : [])),
    ),
  ]);
  return items.map((item) => {
    const cover = item.coverImage ? covers.get(item.coverImage) : undefined;
    return {
      id: item.id,
      slug: item.slug,
      title: item.title,
      excerpt: item.excerpt,
      date: item.date,
      readTime: item.readTime,
      tags: tags.get(item.id) ?? [],
      cover: cover ? { ...pictureOf(cover), alt: item.coverAlt ?? "" } : null,
    };
  });
}
