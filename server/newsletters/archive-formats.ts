import { unzipSync } from "fflate";
import { z } from "zod";
import {
  MAX_ARCHIVE_UPLOAD_BYTES,
  MAX_ARCHIVE_UPLOAD_LABEL,
} from "../../shared/schemas/archive-import";
import { decodeEntities } from "../html-entities";
import { loadPapaParse } from "../lazy";
import { renderLexical, renderMobiledoc } from "./ghost-content";
import { sanitizeNewsletterHtml, textOfHtml } from "./sanitize";
import { firstFreeSlug, isUsableSlug, MAX_SLUG_LENGTH, slugFor } from "./slugs";
import { MAX_TAG_LENGTH, MAX_TAGS, type Tag, tagSlug } from "./tags";

/*
 * Archives from other platforms, read into one shape (ArchivePost) before anything is written:
 * Ghost's JSON export (`{db:[{meta,data:{posts,tags,posts_tags,users,posts_authors,posts_meta}}]}`)
 * and Substack's export zip (posts.csv and posts/{post_id}.html). A file that is not such an
 * archive is refused whole (ArchiveFileError); a post that cannot become a newsletter is skipped
 * with its reason; what was changed on the way (a renamed slug, a left-out card) is noted.
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

const MAX_ARCHIVE_BYTES = MAX_ARCHIVE_UPLOAD_BYTES;
/** Substack's zip unpacked: its CSV and HTML files, at most this much. */
const MAX_UNPACKED_BYTES = 200_000_000;
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
function toPost(
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
      `Its address /${raw.slug || slug} was taken by an earlier post: it is /${free} here.`,
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

function collect(results: (ArchivePost | SkippedItem)[]): ParsedArchive {
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

// ---------------------------------------------------------------- Ghost

const id = z.union([z.string(), z.number()]).transform(String);
const text = z.string().nullish();
const ghostPost = z
  .object({
    id,
    title: text,
    slug: text,
    html: text,
    lexical: text,
    mobiledoc: text,
    plaintext: text,
    custom_excerpt: text,
    feature_image: text,
    feature_image_alt: text,
    type: text,
    page: z.union([z.boolean(), z.number()]).nullish(),
    status: text,
    visibility: text,
    created_at: z.union([z.string(), z.number()]).nullish(),
    published_at: z.union([z.string(), z.number()]).nullish(),
    author_id: id.nullish(),
  })
  .loose();
const ghostData = z
  .object({
    posts: z.array(ghostPost),
    tags: z.array(z.object({ id, name: text, visibility: text }).loose()).nullish(),
    posts_tags: z
      .array(z.object({ post_id: id, tag_id: id, sort_order: z.number().nullish() }).loose())
      .nullish(),
    users: z.array(z.object({ id, name: text, email: text }).loose()).nullish(),
    posts_authors: z
      .array(z.object({ post_id: id, author_id: id, sort_order: z.number().nullish() }).loose())
      .nullish(),
    posts_meta: z.array(z.object({ post_id: id, feature_image_alt: text }).loose()).nullish(),
  })
  .loose();

const GHOST_NOT_EXPORT =
  "This is not a Ghost export: choose the JSON file from Ghost's Settings → Advanced → Import/Export → Export content.";

/** Ghost's export: its posts (not pages) with their body, tags, first author, dates and images. */
export function parseGhostExport(json: string, options: { siteUrl?: string | null } = {}) {
  let value: unknown;
  try {
    value = JSON.parse(json.replace(/^\uFEFF/, ""));
  } catch {
    throw new ArchiveFileError(GHOST_NOT_EXPORT);
  }
  // {db:[{meta,data}]} as Ghost writes it; {meta,data} as some tools do.
  const wrapper = (value ?? {}) as { db?: { data?: unknown }[]; data?: unknown };
  const parsed = ghostData.safeParse(
    Array.isArray(wrapper.db) ? wrapper.db[0]?.data : wrapper.data,
  );
  if (!parsed.success) throw new ArchiveFileError(GHOST_NOT_EXPORT);
  const data = parsed.data;
  const siteUrl = options.siteUrl ?? null;

  const tags = new Map((data.tags ?? []).map((tag) => [tag.id, tag]));
  const users = new Map((data.users ?? []).map((user) => [user.id, user]));
  const bySort = <T extends { sort_order?: number | null }>(a: T, b: T) =>
    (a.sort_order ?? 0) - (b.sort_order ?? 0);
  const tagLinks = new Map<string, { tag_id: string; sort_order?: number | null }[]>();
  for (const link of data.posts_tags ?? []) {
    tagLinks.set(link.post_id, [...(tagLinks.get(link.post_id) ?? []), link]);
  }
  const authorLinks = new Map<string, { author_id: string; sort_order?: number | null }[]>();
  for (const link of data.posts_authors ?? []) {
    authorLinks.set(link.post_id, [...(authorLinks.get(link.post_id) ?? []), link]);
  }
  const alts = new Map(
    (data.posts_meta ?? []).map((meta) => [meta.post_id, meta.feature_image_alt]),
  );

  const slugs = new Set<string>();
  const results = data.posts.map((post): ArchivePost | SkippedItem => {
    const item = plainText(post.title ?? "") || post.slug || `post ${post.id}`;
    const isPage = post.type === "page" || post.page === true || post.page === 1;
    if (isPage) {
      return { item, reason: "A page, not a post: Herald's pages are the site's own." };
    }
    const notes: string[] = [];
    let html = post.html ?? "";
    if (!html.trim()) {
      const rendered = post.lexical
        ? renderLexical(post.lexical)
        : post.mobiledoc
          ? renderMobiledoc(post.mobiledoc)
          : { html: "", notes: [] };
      html = rendered.html;
      notes.push(...rendered.notes);
    }
    let status: ArchivePost["status"] = "draft";
    const ghostStatus = post.status ?? "draft";
    if (ghostStatus === "published") {
      status = "published";
      if (post.visibility && post.visibility !== "public") {
        status = "draft";
        notes.push(
          `It was for ${post.visibility === "members" ? "members" : "paying members"} only on Ghost: imported as a draft.`,
        );
      }
    } else if (ghostStatus === "scheduled") {
      notes.push("It was scheduled on Ghost: imported as a draft, to be scheduled again here.");
    } else if (ghostStatus === "sent") {
      notes.push("It was sent by email only, never on the web: imported as a draft.");
    } else if (ghostStatus !== "draft") {
      notes.push(`Its status on Ghost was “${ghostStatus}”: imported as a draft.`);
    }
    const visibleTags = (tagLinks.get(post.id) ?? [])
      .sort(bySort)
      .map((link) => tags.get(link.tag_id))
      // Ghost's internal tags (#name) organise its theme, not the reader's archive.
      .filter((tag) => tag?.name && tag.visibility !== "internal" && !tag.name.startsWith("#"))
      .map((tag) => tag?.name ?? "");
    const authorId = (authorLinks.get(post.id) ?? []).sort(bySort)[0]?.author_id ?? post.author_id;
    const user = authorId ? users.get(authorId) : undefined;
    return toPost(
      {
        item,
        slug: post.slug ?? "",
        title: post.title ?? "",
        excerpt: post.custom_excerpt ?? "",
        html,
        status,
        publishedAt: isoTime(post.published_at),
        createdAt: isoTime(post.created_at),
        author: user?.name ? { name: plainText(user.name), email: user.email ?? null } : null,
        tagNames: visibleTags,
        featureImage: post.feature_image || null,
        featureAlt: post.feature_image_alt ?? alts.get(post.id) ?? null,
        notes,
      },
      slugs,
      siteUrl,
    );
  });
  return collect(results);
}

// ---------------------------------------------------------------- Substack

const SUBSTACK_NOT_EXPORT =
  "This is not a Substack export: choose the zip file from Substack's Settings → Exports (it holds posts.csv and a posts folder).";

/** Substack's export zip: posts.csv and one HTML file per post (posts/{post_id}.html). */
export async function parseSubstackExport(zip: Uint8Array): Promise<ParsedArchive> {
  let files: Record<string, Uint8Array>;
  let unpacked = 0;
  try {
    files = unzipSync(zip, {
      filter: (file) => {
        const wanted =
          /(^|\/)posts\.csv$/.test(file.name) || /(^|\/)posts\/[^/]+\.html$/.test(file.name);
        if (!wanted) return false;
        unpacked += file.originalSize;
        if (unpacked > MAX_UNPACKED_BYTES) throw new ArchiveFileError("too large");
        return true;
      },
    });
  } catch (error) {
    if (error instanceof ArchiveFileError) {
      throw new ArchiveFileError(
        "The archive unpacks to more than 200 MB. Split it and import each part.",
      );
    }
    throw new ArchiveFileError(SUBSTACK_NOT_EXPORT);
  }
  const csvName = Object.keys(files)
    .filter((name) => /(^|\/)posts\.csv$/.test(name))
    .sort((a, b) => a.length - b.length)[0];
  if (!csvName) throw new ArchiveFileError(SUBSTACK_NOT_EXPORT);
  const folder = csvName.slice(0, csvName.length - "posts.csv".length);
  const decoder = new TextDecoder("utf-8");
  const csv = decoder.decode(files[csvName]).replace(/^\uFEFF/, "");
  const Papa = await loadPapaParse();
  const table = Papa.parse<Record<string, string>>(csv, {
    header: true,
    skipEmptyLines: "greedy",
    transformHeader: (header) => header.trim().toLowerCase(),
  });
  const columns = table.meta.fields ?? [];
  if (!columns.includes("post_id") || !columns.includes("title")) {
    throw new ArchiveFileError(SUBSTACK_NOT_EXPORT);
  }
  const slugs = new Set<string>();
  const results = table.data.map((row, index): ArchivePost | SkippedItem => {
    const postId = (row.post_id ?? "").trim();
    const item = plainText(row.title ?? "") || postId || `row ${index + 2}`;
    if (!postId) return { item, reason: "Its row has no post_id." };
    const type = (row.type ?? "newsletter").trim().toLowerCase();
    if (type === "thread") return { item, reason: "A discussion thread, not a post." };
    const file = files[`${folder}posts/${postId}.html`];
    const notes: string[] = [];
    const published = (row.is_published ?? "").trim().toLowerCase() === "true";
    let status: ArchivePost["status"] = published ? "published" : "draft";
    const audience = (row.audience ?? "everyone").trim().toLowerCase();
    if (published && audience !== "everyone" && audience !== "") {
      status = "draft";
      notes.push("It was for paying subscribers only on Substack: imported as a draft.");
    }
    // post_id is "{number}.{slug}"; a draft's may have no slug.
    const slug = postId.includes(".") ? postId.slice(postId.indexOf(".") + 1) : "";
    const date = isoTime(row.post_date);
    return toPost(
      {
        item,
        slug,
        title: row.title ?? "",
        excerpt: row.subtitle ?? "",
        html: file ? decoder.decode(file) : "",
        status,
        publishedAt: published ? date : null,
        createdAt: date,
        author: null,
        tagNames: [],
        featureImage: null,
        featureAlt: null,
        notes,
      },
      slugs,
      null,
    );
  });
  return collect(results);
}

/** Reads an uploaded archive of the given kind. */
export async function parseArchive(
  source: ArchiveSource,
  bytes: Uint8Array,
  options: { siteUrl?: string | null } = {},
): Promise<ParsedArchive> {
  if (bytes.length === 0) throw new ArchiveFileError("The file is empty.");
  if (bytes.length > MAX_ARCHIVE_BYTES) {
    throw new ArchiveFileError(`The file is larger than ${MAX_ARCHIVE_UPLOAD_LABEL}.`);
  }
  if (source === "ghost") {
    return parseGhostExport(new TextDecoder("utf-8").decode(bytes), options);
  }
  return parseSubstackExport(bytes);
}
