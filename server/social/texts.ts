import type { AnyNode } from "domhandler";
import { DomUtils, parseDocument } from "htmlparser2";
import { charCount, LINKEDIN_MAX, SHORT_MAX } from "../../shared/schemas/social";

/*
 * The social pack's two texts, made from a newsletter (issue 36): the LinkedIn post (a hook, three
 * points from the headings or first paragraphs, the link with UTM parameters, hashtags from the
 * tags; at most LINKEDIN_MAX characters) and a short post of at most SHORT_MAX. Pure: pack.ts
 * reads the newsletter and keeps the texts.
 */

const POINT_MAX = 200;
const HOOK_MAX = 220;
const MAX_HASHTAGS = 5;
const SHORT_HASHTAGS = 2;

export interface SocialSource {
  title: string;
  excerpt: string;
  /** the newsletter's HTML */
  content: string;
  slug: string;
  tags: readonly string[];
  /** the tenant's public origin */
  origin: string;
  companyName: string;
}

export interface SocialTexts {
  linkedIn: string;
  short: string;
}

const squash = (text: string) => text.replace(/\s+/g, " ").trim();

/** `text` cut at a word boundary to at most `max` characters, "…" marking the cut. */
export function clip(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  const head = chars.slice(0, max - 1).join("");
  const space = head.lastIndexOf(" ");
  return `${(space > max / 2 ? head.slice(0, space) : head).replace(/[\s,;:.–—-]+$/, "")}…`;
}

/** The first sentence of a paragraph (all of it when it has no sentence end). */
function firstSentence(text: string): string {
  const match = /^(.+?[.!?])(\s|$)/u.exec(text);
  return match?.[1] ?? text;
}

export interface Outline {
  headings: string[];
  paragraphs: string[];
  /** the pull quotes: each blockquote's text */
  quotes: string[];
}

const BLOCKS = new Set(["p", "div", "li", "br", "h1", "h2", "h3", "h4", "h5", "h6", "figcaption"]);

/** A node's text, blocks and line breaks apart by a space. */
function textOf(node: AnyNode): string {
  if (node.type === "text") return (node as { data: string }).data;
  if (!("children" in node)) return "";
  const inner = node.children.map(textOf).join("");
  return "name" in node && BLOCKS.has(node.name as string) ? ` ${inner} ` : inner;
}

/** What of the newsletter's HTML a post draws on: headings, paragraphs, blockquotes, in order. */
export function outlineOf(html: string): Outline {
  const document = parseDocument(html);
  const inQuote = (node: AnyNode) => {
    for (let parent = node.parent; parent; parent = parent.parent)
      if ("name" in parent && parent.name === "blockquote") return true;
    return false;
  };
  const texts = (names: readonly string[], outsideQuotes: boolean) =>
    DomUtils.findAll((node) => names.includes(node.name), document.children)
      .filter((node) => !outsideQuotes || !inQuote(node))
      .map((node) => squash(textOf(node)))
      .filter(Boolean);
  return {
    headings: texts(["h2", "h3"], true),
    paragraphs: texts(["p"], true),
    quotes: texts(["blockquote"], true),
  };
}

/** Three points: the headings first, then the first sentences of the first paragraphs. */
export function pointsOf(outline: Outline, count = 3): string[] {
  const points: string[] = [];
  const seen = new Set<string>();
  for (const candidate of [...outline.headings, ...outline.paragraphs.map(firstSentence)]) {
    const point = clip(candidate, POINT_MAX);
    const key = point.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    points.push(point);
    if (points.length === count) break;
  }
  return points;
}

/** A tag as a hashtag: its words joined, each after the first capitalised ("legal tech" → #legalTech). */
export function hashtag(tag: string): string | null {
  const words = tag.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  if (words.length === 0) return null;
  const joined = words
    .map((word, index) => (index === 0 ? word : word.charAt(0).toUpperCase() + word.slice(1)))
    .join("");
  // A hashtag of digits alone is not one on LinkedIn or X.
  return /^\p{N}+$/u.test(joined) ? null : `#${joined}`;
}

export function hashtagsOf(tags: readonly string[], max = MAX_HASHTAGS): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const tag of tags) {
    const made = hashtag(tag);
    if (!made || seen.has(made.toLowerCase())) continue;
    seen.add(made.toLowerCase());
    out.push(made);
    if (out.length === max) break;
  }
  return out;
}

/** The newsletter's address with UTM parameters for `source` (campaign: its slug). */
export function utmLink(source: SocialSource, utmSource: string, campaign = true): string {
  const url = new URL(`/newsletter/${encodeURIComponent(source.slug)}`, source.origin);
  url.searchParams.set("utm_source", utmSource);
  url.searchParams.set("utm_medium", "social");
  if (campaign) url.searchParams.set("utm_campaign", source.slug);
  return url.toString();
}

/** The LinkedIn post: hook, title line, points, link, hashtags; within LINKEDIN_MAX. */
export function linkedInPost(source: SocialSource): string {
  const title = squash(source.title);
  const excerpt = squash(source.excerpt);
  const hook = clip(excerpt ? firstSentence(excerpt) : title, HOOK_MAX);
  const company = squash(source.companyName);
  const intro = hook === title ? `New from ${company}.` : `New from ${company}: ${title}`;
  const link = `Read it here: ${utmLink(source, "linkedin")}`;
  const tags = hashtagsOf(source.tags).join(" ");
  const compose = (points: string[]) =>
    [hook, intro, points.length ? points.map((point) => `→ ${point}`).join("\n") : "", link, tags]
      .filter(Boolean)
      .join("\n\n");
  let points = pointsOf(outlineOf(source.content));
  let post = compose(points);
  // Points are the part that gives way (each is at most 200 characters: this is for long titles).
  while (charCount(post) > LINKEDIN_MAX && points.length > 0) {
    points = points.slice(0, -1);
    post = compose(points);
  }
  return charCount(post) > LINKEDIN_MAX ? clip(post, LINKEDIN_MAX) : post;
}

/**
 * The short post (X, Bluesky, Mastodon): the title, the link (utm_source=x), two hashtags; within
 * SHORT_MAX characters counted in full (not as X's 23-character links, so it fits everywhere).
 */
export function shortPost(source: SocialSource): string {
  let link = utmLink(source, "x");
  if (charCount(link) > 200) link = utmLink(source, "x", false);
  const tags = hashtagsOf(source.tags, SHORT_HASHTAGS).join(" ");
  const title = squash(source.title);
  for (const withTags of [true, false]) {
    const tail = [link, withTags ? tags : ""].filter(Boolean).join(" ");
    const room = SHORT_MAX - charCount(tail) - 1;
    if (room >= 20) return `${clip(title, room)} ${tail}`;
  }
  return clip(`${title} ${link}`, SHORT_MAX);
}

export function socialTexts(source: SocialSource): SocialTexts {
  return { linkedIn: linkedInPost(source), short: shortPost(source) };
}
