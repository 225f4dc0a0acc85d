import { displayNameOf } from "../auth/users";
import { pageContentHtml } from "../content/blocks";
import {
  findImagesByUrl,
  imageSources,
  type Picture,
  pictureOf,
  withResponsiveImages,
} from "../files/stored-images";
import { MiB, memoryCache, stringBytes } from "../memory-cache";
import type { TenantScope } from "../scope";
import { type Comment, listComments } from "./comments";
import { getPublishedNewsletterBySlug } from "./listing";
import type { Newsletter } from "./model";
import { viewPublishedNewsletter } from "./newsletters";
import { sanitizeNewsletterHtml } from "./sanitize";
import { type Tag, tagsOfNewsletters } from "./tags";

/**
 * The public reading of a newsletter (SPEC §2 Newsletter detail): the published newsletter, its
 * content made safe to render, its comments, and one more view.
 */
export interface NewsletterReading {
  /** metrics.views includes the view this reading counted */
  newsletter: Newsletter;
  /** sanitised content, safe for dangerouslySetInnerHTML */
  html: string;
  comments: Comment[];
  /** the writer's byline name, when they set one */
  author: string | null;
  tags: Tag[];
  cover: (Picture & { alt: string }) | null;
}

/** Comments shown on the page; a newsletter with more shows its newest. */
export const COMMENTS_SHOWN = 200;

export async function readNewsletter(
  ctx: TenantScope,
  slug: string,
  options: { countView: boolean; includeHidden: boolean },
): Promise<NewsletterReading | null> {
  const found = options.countView
    ? await viewPublishedNewsletter(ctx, slug)
    : { newsletter: await getPublishedNewsletterBySlug(ctx, slug), version: null };
  if (!found?.newsletter) return null;
  const { newsletter, version } = found;
  const [comments, article] = await Promise.all([
    options.includeHidden
      ? listComments(ctx, newsletter.id, { includeHidden: true, limit: COMMENTS_SHOWN })
      : readersComments(ctx, newsletter.id, version),
    readArticle(ctx, newsletter),
  ]);
  return { ...article, newsletter, comments };
}

// The comments readers see, kept per page version: the version (read before the list) rises with
// every change to that list (countNewsletterComment), so a list kept under a version is never
// older than it. Like the page cache, this instance learns of another's change from the version.
// Bounded by the comments' text: 200 comments of 2,000 characters at most are under 1 MB a list.
const readersLists = memoryCache<string, Comment[]>({
  maxBytes: 16 * MiB,
  bytesOf: (comments, key) =>
    stringBytes(key) +
    comments.reduce((bytes, comment) => bytes + stringBytes(JSON.stringify(comment)), 64),
});

async function readersComments(
  ctx: TenantScope,
  newsletterId: string,
  version: string | null,
): Promise<Comment[]> {
  const key = version === null ? null : `${ctx.tenantId}\u0000${newsletterId}\u0000${version}`;
  const kept = key === null ? undefined : readersLists.get(key);
  if (kept) return kept;
  const comments = await listComments(ctx, newsletterId, { limit: COMMENTS_SHOWN });
  if (key !== null) readersLists.set(key, comments);
  return comments;
}

/** What the article shows besides comments: safe HTML, byline, tags and cover (also for previews). */
export async function readArticle(
  ctx: TenantScope,
  newsletter: Newsletter,
): Promise<Pick<NewsletterReading, "html" | "author" | "tags" | "cover">> {
  const [html, author, tags, covers] = await Promise.all([
    safeNewsletterHtml(ctx, newsletter),
    // A staff member's byline; an imported post's own author when none applies.
    newsletter.authorId
      ? displayNameOf(ctx.db, newsletter.authorId).then((name) => name ?? newsletter.authorName)
      : newsletter.authorName,
    tagsOfNewsletters(ctx, [newsletter.id]),
    newsletter.coverImage
      ? findImagesByUrl(ctx.db, ctx.tenantId, [newsletter.coverImage])
      : new Map<string, never>(),
  ]);
  const cover = newsletter.coverImage ? covers.get(newsletter.coverImage) : undefined;
  return {
    html,
    author,
    tags: tags.get(newsletter.id) ?? [],
    cover: cover ? { ...pictureOf(cover), alt: newsletter.coverAlt ?? "" } : null,
  };
}

// Content is sanitised on save and again before render (DESIGN.md §8). The second pass costs about
// a millisecond for 1,500 words, as much as the rest of the page, so its result is kept per
// newsletter version; the stored content is compared too, so a changed row is never served stale.
// Pieces of 100,000 characters and more are not kept (maxEntryBytes): few, and a cache's worth each.
const rendered = memoryCache<string, { content: string; html: string }>({
  maxBytes: 32 * MiB,
  maxEntryBytes: 2 * stringBytes("x".repeat(100_000)),
  bytesOf: (entry, key) => stringBytes(key) + stringBytes(entry.content) + stringBytes(entry.html),
});

async function safeNewsletterHtml(ctx: TenantScope, newsletter: Newsletter): Promise<string> {
  const key = `${newsletter.id}\u0000${newsletter.updatedAt}`;
  const hit = rendered.get(key);
  if (hit && hit.content === newsletter.content) return hit.html;
  const safe = pageContentHtml(sanitizeNewsletterHtml(newsletter.content));
  // Uploaded images get their AVIF/WebP srcset and their size (issue 12).
  const images = await findImagesByUrl(ctx.db, ctx.tenantId, imageSources(safe));
  const html = withResponsiveImages(safe, images);
  rendered.set(key, { content: newsletter.content, html });
  return html;
}

/**
 * A newsletter as its public page would show it, whatever its status (the staff preview and the
 * shared preview link): a draft is dated when it is scheduled to appear, else today.
 */
export async function previewArticle(ctx: TenantScope, newsletter: Newsletter, now = new Date()) {
  const article = await readArticle(ctx, newsletter);
  return {
    title: newsletter.title,
    excerpt: newsletter.excerpt,
    date:
      newsletter.status === "published"
        ? newsletter.date
        : (newsletter.scheduledAt ?? now.toISOString()),
    readTime: newsletter.readTime,
    ...article,
  };
}
