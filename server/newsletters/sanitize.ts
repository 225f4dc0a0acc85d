import sanitizeHtml from "sanitize-html";
import {
  BLOCK_ATTRIBUTES,
  BLOCK_TAGS,
  blockTransforms,
  excludeForeignDiv,
} from "../content/block-rules";

/**
 * Newsletter HTML is shown to the public: it is cleaned on save and again before render
 * (DESIGN.md §8). Only what the editor produces survives: headings, text formatting, lists,
 * quotes, links, images, code, simple tables and the editor's blocks (shared/blocks.ts).
 */
export const NEWSLETTER_HTML_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    "h1",
    "h2",
    "h3",
    "h4",
    "p",
    "br",
    "hr",
    "strong",
    "b",
    "em",
    "i",
    "u",
    "s",
    "code",
    "pre",
    "blockquote",
    "ul",
    "ol",
    "li",
    "a",
    "img",
    "figure",
    "figcaption",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "span",
    "sub",
    "sup",
    "mark",
    ...BLOCK_TAGS,
  ],
  allowedAttributes: {
    a: ["href", "title", "target", "rel"],
    img: ["src", "alt", "title", "width", "height", ...(BLOCK_ATTRIBUTES.img ?? [])],
    th: ["colspan", "rowspan"],
    td: ["colspan", "rowspan"],
    ol: ["start"],
    div: BLOCK_ATTRIBUTES.div ?? [],
    span: BLOCK_ATTRIBUTES.span ?? [],
  },
  allowedSchemes: ["http", "https", "mailto"],
  allowedSchemesByTag: { img: ["http", "https", "data"] },
  allowProtocolRelative: false,
  exclusiveFilter: excludeForeignDiv,
  transformTags: {
    ...blockTransforms,
    // Links to other sites open safely.
    a: (tagName, attribs) => {
      const external = /^https?:\/\//i.test(attribs.href ?? "");
      return {
        tagName,
        attribs: external
          ? { ...attribs, rel: "noopener noreferrer nofollow", target: "_blank" }
          : attribs,
      };
    },
  },
};

export function sanitizeNewsletterHtml(html: string): string {
  return sanitizeHtml(html, NEWSLETTER_HTML_OPTIONS);
}

const ENTITIES: Record<string, string> = {
  nbsp: " ",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  amp: "&",
};

/** The words of sanitised newsletter HTML as plain text (for search): tags become spaces. */
export function textOfHtml(html: string): string {
  return html
    .replace(/<[^>]*>/g, " ")
    .replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (entity, name: string) => {
      if (!name.startsWith("#")) return ENTITIES[name.toLowerCase()] ?? entity;
      const hex = name[1] === "x" || name[1] === "X";
      const code = hex ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : " ";
    })
    .replace(/\s+/g, " ")
    .trim();
}
