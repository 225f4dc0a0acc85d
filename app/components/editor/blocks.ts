import { NodeSelection, TextSelection, type Transaction } from "@tiptap/pm/state";
import { Node } from "@tiptap/react";
import {
  CALLOUT_TONES,
  EMBED_PROVIDERS,
  isEmbedProvider,
  MAX_CALLOUT_ICON_LENGTH,
  siteOf,
} from "../../../shared/blocks";

/*
 * The editor's blocks as TipTap nodes (issue 35, target 2). Each reads and writes the stored HTML
 * that shared/blocks.ts describes, so what the editor saves is what the sanitiser, the page and
 * the mail know. Buttons, images and cards are atoms edited through a dialog; a callout and the
 * web/email-only sections hold ordinary content.
 */

type DomSpec = [string, Record<string, string>, ...(DomSpec | string | 0)[]];

const text = (element: Element | null | undefined) => element?.textContent?.trim() ?? "";
const attr = (element: Element | null | undefined, name: string) =>
  element?.getAttribute(name) ?? "";

/** Attributes the node keeps itself (parsed by its rule, written by renderHTML). */
function keptAttributes(names: string[], defaults: Record<string, string> = {}) {
  return Object.fromEntries(
    names.map((name) => [name, { default: defaults[name] ?? "", rendered: false }]),
  );
}

export const ButtonBlock = Node.create({
  name: "buttonBlock",
  group: "block",
  atom: true,
  draggable: true,
  addAttributes: () => keptAttributes(["href", "label"]),
  parseHTML: () => [
    {
      tag: 'div[data-block="button"]',
      getAttrs: (element) => {
        const link = element.querySelector("a");
        return link ? { href: attr(link, "href"), label: text(link) } : false;
      },
    },
  ],
  renderHTML: ({ node }) => [
    "div",
    { "data-block": "button" },
    ["a", { href: node.attrs.href }, node.attrs.label],
  ],
});

export const Callout = Node.create({
  name: "callout",
  group: "block",
  content: "paragraph+",
  defining: true,
  addAttributes: () => keptAttributes(["tone", "icon"], { tone: CALLOUT_TONES[0] }),
  parseHTML: () => [
    {
      tag: 'div[data-block="callout"]',
      getAttrs: (element) => ({
        tone: (CALLOUT_TONES as readonly string[]).includes(attr(element, "data-tone"))
          ? attr(element, "data-tone")
          : CALLOUT_TONES[0],
        icon: [...attr(element, "data-icon")].slice(0, MAX_CALLOUT_ICON_LENGTH).join(""),
      }),
    },
  ],
  renderHTML: ({ node }) => [
    "div",
    {
      "data-block": "callout",
      "data-tone": node.attrs.tone,
      ...(node.attrs.icon ? { "data-icon": node.attrs.icon } : {}),
    },
    0,
  ],
});

/** An image with its caption: <figure>, also as archives and pasted pages write it. */
export const CaptionedImage = Node.create({
  name: "captionedImage",
  group: "block",
  atom: true,
  draggable: true,
  addAttributes: () => keptAttributes(["src", "alt", "width", "height", "caption"]),
  parseHTML: () => [
    {
      tag: "figure",
      getAttrs: (element) => {
        const image = element.querySelector("img");
        if (!image) return false;
        return {
          src: attr(image, "src"),
          alt: attr(image, "alt"),
          width: attr(image, "width"),
          height: attr(image, "height"),
          caption: text(element.querySelector("figcaption")),
        };
      },
    },
  ],
  renderHTML: ({ node }) => {
    const { src, alt, width, height, caption } = node.attrs;
    const image: DomSpec = [
      "img",
      { src, alt, ...(width && height ? { width: String(width), height: String(height) } : {}) },
    ];
    return caption ? ["figure", {}, image, ["figcaption", {}, caption]] : ["figure", {}, image];
  },
});

const CARD_FIELDS = ["url", "title", "description", "image", "alt"];

/** What a card's link holds, as stored: the link, then its picture, title and description. */
function readCard(element: HTMLElement) {
  const link = element.querySelector("a");
  if (!link) return false;
  const image = link.querySelector('img[data-part="image"]') ?? link.querySelector("img");
  return {
    url: attr(link, "href"),
    title: text(link.querySelector('[data-part="title"]')),
    description: text(link.querySelector('[data-part="description"]')),
    image: attr(image, "src"),
    alt: attr(image, "alt"),
  };
}

function cardSpec(
  attrs: Record<string, string>,
  block: Record<string, string>,
  site: string,
): DomSpec {
  const parts: DomSpec[] = [];
  if (attrs.image)
    parts.push(["img", { "data-part": "image", src: attrs.image, alt: attrs.alt ?? "" }]);
  if (attrs.title) parts.push(["span", { "data-part": "title" }, attrs.title]);
  if (attrs.description) parts.push(["span", { "data-part": "description" }, attrs.description]);
  if (site) parts.push(["span", { "data-part": "site" }, site]);
  return ["div", block, ["a", { href: attrs.url ?? "" }, ...parts]];
}

export const BookmarkCard = Node.create({
  name: "bookmarkCard",
  group: "block",
  atom: true,
  draggable: true,
  addAttributes: () => keptAttributes(CARD_FIELDS),
  parseHTML: () => [{ tag: 'div[data-block="bookmark"]', getAttrs: readCard }],
  renderHTML: ({ node }) =>
    cardSpec(node.attrs, { "data-block": "bookmark" }, siteOf(node.attrs.url)),
});

/** A video or a post on a social site, as a linked card: no player, no third-party script. */
export const EmbedCard = Node.create({
  name: "embedCard",
  group: "block",
  atom: true,
  draggable: true,
  addAttributes: () => keptAttributes([...CARD_FIELDS, "provider"], { provider: "youtube" }),
  parseHTML: () => [
    {
      tag: 'div[data-block="embed"]',
      getAttrs: (element) => {
        const card = readCard(element);
        const provider = attr(element, "data-provider");
        return card && isEmbedProvider(provider) ? { ...card, provider } : false;
      },
    },
  ],
  renderHTML: ({ node }) => {
    const provider = isEmbedProvider(node.attrs.provider) ? node.attrs.provider : "youtube";
    return cardSpec(
      node.attrs,
      { "data-block": "embed", "data-provider": provider },
      EMBED_PROVIDERS[provider].action,
    );
  },
});

export type Audience = "web" | "email";

/** Content shown only on the page, or only in the mail. */
export const AudienceSection = Node.create({
  name: "audienceSection",
  group: "block",
  content: "block+",
  defining: true,
  addAttributes: () => keptAttributes(["audience"], { audience: "web" }),
  parseHTML: () => [
    { tag: 'div[data-block="web-only"]', attrs: { audience: "web" } },
    { tag: 'div[data-block="email-only"]', attrs: { audience: "email" } },
  ],
  renderHTML: ({ node }) => [
    "div",
    { "data-block": node.attrs.audience === "email" ? "email-only" : "web-only" },
    0,
  ],
});

export const BLOCK_EXTENSIONS = [
  ButtonBlock,
  Callout,
  CaptionedImage,
  BookmarkCard,
  EmbedCard,
  AudienceSection,
];

/**
 * After a block is inserted, the caret goes into the paragraph after it (made when there is
 * none): left on the block itself, the next key typed would replace it.
 */
export function caretAfterBlock({ tr }: { tr: Transaction }): boolean {
  if (!(tr.selection instanceof NodeSelection)) return true;
  const after = tr.selection.to;
  if (!tr.doc.resolve(after).nodeAfter?.isTextblock) {
    tr.insert(after, tr.doc.type.schema.nodes.paragraph.create());
  }
  tr.setSelection(TextSelection.create(tr.doc, after + 1));
  return true;
}
