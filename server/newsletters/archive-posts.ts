import { decodeEntities } from "../html-entities";
import { htmlLimitProblem } from "./html-limits";
import { sanitizeNewsletterHtml, textOfHtml } from "./sanitize";
import { firstFreeSlug, isUsableSlug, MAX_SLUG_LENGTH, slugFor, TOP_LEVEL_SEGMENTS } from "./slugs";
import { MAX_TAG_LENGTH, MAX_TAGS, type Tag, tagSlug } from "./tags";

/*
 * The one shape both exports are read into (ArchivePost), and what the two readers share: plain
 * text, times, tags, images made absolute, a post checked and shortened, the results collected.
 */

export type ArchiveSource = "ghost" | "substack";

/** A post as Herald will store it (apart from its images, copied when it is written). */
export interface ArchivePost {
  /** how the report names it */
  item: string;
  slug: string;
  title: string;
  excerpt: string;
  html: string;
  status: "published" | "draft";
  publishedAt: string | null;
  createdAt: string;
  author: { name: string; email: string | null } | null;
  tags: Tag[];
  featureImage: string | null;
  featureAlt: string | null;
  /** what the import changed or left out, shown in the report */
  notes: string[];
}

export interface SkippedItem {
  item: string;
  reason: string;
}

export interface ParsedArchive {
  posts: ArchivePost[];
  skipped: SkippedItem[];
}

/** A file that is not an archive of the kind chosen; nothing is queued. */
export class ArchiveFileError extends Error {}

export const MAX_ARCHIVE_POSTS = 20_000;

const MAX_TITLE = 200;
const MAX_EXCERPT = 500;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Plain text from a title as exports write it: entities decoded, tags and runs of space gone. */
export function plainText(value: string): string {
  return (
    decodeEntities(value.replace(/<[^>]*>/g, " "), " ")
      // Control characters and lone surrogates are not text (decision 026).
      .replace(/\p{Cc}/gu, " ")
      .replace(LONE_SURROGATE, " ")
      .replace(/\s+/g, " ")
      .trim()
  );
}

/** Text a database stores as it is: no NUL (PostgreSQL refuses it), no lone surrogates. */
export function storable(text: string): string {
  return text.replaceAll("\u0000", "").replace(LONE_SURROGATE, "\ufffd");
}

/** An ISO time from what exports write (ISO text, "YYYY-MM-DD hh:mm:ss", epoch milliseconds). */
export function isoTime(value: unknown): string | null {
  if (value === null || value === undefined || value === "") return null;
  const date =
    typeof value === "number"
      ? new Date(value)
      : new Date(
          /^\d{4}-\d\d-\d\d \d/.test(String(value)) ? `${value}Z`.replace(" ", "T") : String(value),
        );
  const time = date.getTime();
  // Before 1990 or far ahead: not a date any newsletter was written on.
  if (Number.isNaN(time) || time < 631_152_000_000 || time > Date.now() + 366 * 86_400_000) {
    return null;
  }
  return date.toISOString();
}

function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`;
}

/** The tags a post keeps: usable names, once each, at most MAX_TAGS. */
function tagsOf(names: string[], notes: string[]): Tag[] {
  const tags: Tag[] = [];
  for (const raw of names) {
    const name = plainText(raw).slice(0, MAX_TAG_LENGTH).trim();
    const slug = tagSlug(name);
    if (!slug || tags.some((tag) => tag.slug === slug)) continue;
    tags.push({ slug, name });
  }
  if (tags.length > MAX_TAGS) {
    notes.push(`Only the first ${MAX_TAGS} of its ${tags.length} tags were kept.`);
    return tags.slice(0, MAX_TAGS);
  }
  return tags;
}

/** Where images without a host live: the old site's address, when given. */
function resolveUrl(url: string, siteUrl: string | null): string {
  const placeholder = url.replace(/^__GHOST_URL__/, siteUrl ?? "__GHOST_URL__");
  if (siteUrl && placeholder.startsWith("/") && !placeholder.startsWith("//")) {
    return new URL(placeholder, siteUrl).toString();
  }
  return placeholder;
}

function resolveImages(html: string, siteUrl: string | null): string {
  return html.replace(
    /(<img\b[^>]*?\bsrc=")([^"]+)"/gi,
    (_, head: string, src: string) => `${head}${resolveUrl(src, siteUrl)}"`,
  );
}

/**
 * The common part of both formats: a post from what the export gave, or the reason it is skipped.
 * `slugs` holds the slugs given out so far in this file (duplicates get -2, -3…).
 */
export function toPost(
  // As the export gave it: tags by name, the creation time perhaps missing.
  raw: Omit<ArchivePost, "createdAt" | "tags"> & { createdAt: string | null; tagNames: string[] },
  slugs: Set<string>,
  siteUrl: string | null,
): ArchivePost | SkippedItem {
  const notes = [...raw.notes];
  let title = plainText(raw.title);
  if (!title) return { item: raw.item, reason: "It has no title." };
  if (title.length > MAX_TITLE) {
    notes.push(`Its title was shortened to ${MAX_TITLE} characters.`);
    title = shorten(title, MAX_TITLE);
  }
  // Too large, too deep or too many elements to clean and show (issue 44): refused by name.
  const tooMuch = htmlLimitProblem(raw.html);
  if (tooMuch) return { item: raw.item, reason: tooMuch };
  // Cleaned now (and again when stored): the job keeps only what could be shown.
  const html = sanitizeNewsletterHtml(storable(resolveImages(raw.html, siteUrl)));
  const text = textOfHtml(html);
  if (!text && !/<img\s/i.test(html)) return { item: raw.item, reason: "It has no content." };
  const excerpt = shorten(plainText(raw.excerpt) || text || title, MAX_EXCERPT);
  const wanted = raw.slug.trim().toLowerCase().slice(0, MAX_SLUG_LENGTH);
  let slug = isUsableSlug(wanted) ? wanted : slugFor(wanted || title);
  if (slugs.has(slug) || !isUsableSlug(slug)) {
    const free = firstFreeSlug(slug, (each) => slugs.has(each));
    notes.push(
      TOP_LEVEL_SEGMENTS.has(slug)
        ? `Its address /${slug} is one of the site's own addresses: it is /${free} here.`
        : `Its address /${raw.slug || slug} was taken by an earlier post: it is /${free} here.`,
    );
    slug = free;
  }
  slugs.add(slug);
  const createdAt = raw.createdAt ?? raw.publishedAt ?? new Date().toISOString();
  const publishedAt = raw.status === "published" ? (raw.publishedAt ?? createdAt) : null;
  return {
    item: raw.item,
    slug,
    title,
    excerpt,
    html,
    status: raw.status,
    publishedAt,
    createdAt,
    author: raw.author,
    tags: tagsOf(raw.tagNames, notes),
    featureImage: raw.featureImage ? resolveUrl(raw.featureImage, siteUrl) : null,
    featureAlt: raw.featureAlt ? plainText(raw.featureAlt).slice(0, 300) : null,
    notes,
  };
}

export function collect(results: (ArchivePost | SkippedItem)[]): ParsedArchive {
  const posts: ArchivePost[] = [];
  const skipped: SkippedItem[] = [];
  for (const result of results) {
    if ("reason" in result) skipped.push(result);
    else posts.push(result);
  }
  if (posts.length + skipped.length > MAX_ARCHIVE_POSTS) {
    throw new ArchiveFileError(
      `The archive has more than ${MAX_ARCHIVE_POSTS.toLocaleString("en")} posts. Split it and import each part.`,
    );
  }
  return { posts, skipped };
}
