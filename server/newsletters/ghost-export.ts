import { z } from "zod";
import {
  ArchiveFileError,
  type ArchivePost,
  collect,
  isoTime,
  plainText,
  type SkippedItem,
  toPost,
} from "./archive-posts";
import { renderLexical, renderMobiledoc } from "./ghost-content";

/* Ghost's JSON export read into ArchivePosts (archive-formats.ts chooses the reader). */

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
