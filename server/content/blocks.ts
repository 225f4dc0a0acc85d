import type { ChildNode, Element } from "domhandler";
import { DomUtils, parseDocument } from "htmlparser2";
import {
  CALLOUT_COLOURS,
  CALLOUT_TONES,
  type CalloutTone,
  EMBED_PROVIDERS,
  isEmbedProvider,
} from "../../shared/blocks";
import { escapeHtml } from "../html-entities";

/*
 * The editor's blocks (shared/blocks.ts) as the page and the mail show them. The page shows the
 * stored HTML as it is (styled by the article's CSS) less the "email only" sections; the mail gets
 * tables with inline styles instead, as mail clients need (Outlook has no flex, grid or
 * max-width, and several clients drop <style>), less the "web only" sections.
 */

const BLOCK_SELECTOR = (kind: string) => (node: ChildNode) =>
  DomUtils.isTag(node) && node.name === "div" && node.attribs["data-block"] === kind;

/** Sanitised content as the page shows it: "email only" sections left out. */
export function pageContentHtml(html: string): string {
  if (!html.includes('data-block="email-only"')) return html;
  const document = parseDocument(html);
  for (const section of DomUtils.findAll(BLOCK_SELECTOR("email-only"), document.children)) {
    DomUtils.removeElement(section);
  }
  return DomUtils.getOuterHTML(document, { encodeEntities: "utf8" });
}

export interface EmailBlockStyle {
  textColor: string;
  /** links and buttons: the tenant's colour, readable on white */
  linkColor: string;
  /** the content column's width in pixels */
  width: number;
}

/**
 * Mail-ready content (URLs absolute, typography inline: server/emails/content.ts) with each block
 * made a table: a button Outlook draws, cards that keep their shape without CSS support.
 */
export function emailBlocksHtml(html: string, style: EmailBlockStyle): string {
  if (!html.includes("data-block=")) return html;
  const document = parseDocument(html);
  const blocks = DomUtils.findAll(
    (node) => node.name === "div" && Boolean(node.attribs["data-block"]),
    document.children,
  );
  // Innermost first, so a section's blocks are tables before the section is unwrapped.
  for (const block of blocks.reverse()) {
    const kind = block.attribs["data-block"];
    if (kind === "web-only") DomUtils.removeElement(block);
    else if (kind === "email-only") unwrap(block);
    else replaceWith(block, emailBlock(block, style));
  }
  return DomUtils.getOuterHTML(document, { encodeEntities: "utf8" });
}

function emailBlock(block: Element, style: EmailBlockStyle): string {
  switch (block.attribs["data-block"]) {
    case "button":
      return emailButton(block, style);
    case "callout":
      return emailCallout(block, style);
    case "bookmark":
      return emailBookmark(block, style);
    case "embed":
      return emailEmbed(block, style);
    default:
      return DomUtils.getInnerHTML(block);
  }
}

const TABLE = 'role="presentation" border="0" cellpadding="0" cellspacing="0"';
const CARD_BORDER = "border:1px solid #d4d4d8;border-radius:6px;border-collapse:separate;";

function emailButton(block: Element, style: EmailBlockStyle): string {
  const link = DomUtils.findOne((node) => node.name === "a", block.children);
  const href = link?.attribs.href;
  const label = escapeHtml(link ? DomUtils.textContent(link).trim() : "");
  if (!href || !label) return "";
  const colour = style.linkColor;
  // The colour on the cell too: Outlook ignores an inline link's padding and background.
  return `<table ${TABLE} style="margin:8px 0 24px;border-collapse:separate;"><tr><td align="center" bgcolor="${colour}" style="border-radius:6px;background-color:${colour};"><a href="${escapeHtml(href)}" target="_blank" rel="noopener" style="display:inline-block;padding:12px 24px;border-radius:6px;background-color:${colour};color:#ffffff;font-size:16px;line-height:20px;font-weight:700;text-decoration:none;">${label}</a></td></tr></table>`;
}

function emailCallout(block: Element, style: EmailBlockStyle): string {
  const tone = (CALLOUT_TONES as readonly string[]).includes(block.attribs["data-tone"] ?? "")
    ? (block.attribs["data-tone"] as CalloutTone)
    : "info";
  const { background, border } = CALLOUT_COLOURS[tone];
  const icon = block.attribs["data-icon"]?.trim();
  // The last paragraph's bottom margin would leave the box lopsided.
  const last = [...block.children].reverse().find(DomUtils.isTag);
  if (last?.name === "p") last.attribs.style = "margin:0;";
  let body = DomUtils.getInnerHTML(block, { encodeEntities: "utf8" });
  if (icon) {
    // Before the first line, not in a cell of its own: the text part reads "💡 The call is…".
    const mark = `<span style="font-size:20px;line-height:20px;">${escapeHtml(icon)}</span>&nbsp;`;
    const opening = /^<p\b[^>]*>/.exec(body)?.[0] ?? "";
    body = opening + mark + body.slice(opening.length);
  }
  return `<table ${TABLE} width="100%" style="margin:0 0 16px;border-collapse:separate;"><tr><td bgcolor="${background}" style="background-color:${background};border-left:4px solid ${border};border-radius:6px;padding:14px 16px;color:${style.textColor};">${body}</td></tr></table>`;
}

/** A card's parts as stored: the link, and the image, title, description and site inside it. */
function cardParts(block: Element) {
  const link = DomUtils.findOne((node) => node.name === "a", block.children);
  const part = (name: string) =>
    link ? DomUtils.findOne((node) => node.attribs["data-part"] === name, link.children) : null;
  const image = link ? DomUtils.findOne((node) => node.name === "img", link.children) : null;
  const text = (name: string) => {
    const element = part(name);
    return element ? escapeHtml(DomUtils.textContent(element).trim()) : "";
  };
  return {
    href: link?.attribs.href ? escapeHtml(link.attribs.href) : "",
    imageSrc: image?.attribs.src ? escapeHtml(image.attribs.src) : "",
    imageAlt: escapeHtml(image?.attribs.alt ?? ""),
    title: text("title"),
    description: text("description"),
    site: text("site"),
  };
}

// A card's picture links too, marked data-text="skip": the text part names the link once, by its
// title (server/emails/templates.tsx).
function emailBookmark(block: Element, style: EmailBlockStyle): string {
  const card = cardParts(block);
  if (!card.href) return "";
  const title = card.title || card.site || card.href;
  const imageCell = card.imageSrc
    ? `<td width="120" valign="top" style="width:120px;padding:0;"><a href="${card.href}" target="_blank" rel="noopener" data-text="skip"><img src="${card.imageSrc}" alt="${card.imageAlt || title}" width="120" style="display:block;width:120px;height:auto;border:0;border-radius:0 6px 0 0;"></a></td>`
    : "";
  return `<table ${TABLE} width="100%" style="margin:0 0 16px;${CARD_BORDER}"><tr><td valign="top" style="padding:14px 16px;"><p style="margin:0;font-size:16px;line-height:22px;font-weight:700;"><a href="${card.href}" target="_blank" rel="noopener" style="color:${style.textColor};text-decoration:none;">${title}</a></p>${
    card.description
      ? `<p style="margin:4px 0 0;font-size:14px;line-height:20px;color:#52525b;">${card.description}</p>`
      : ""
  }${
    card.site
      ? `<p style="margin:8px 0 0;font-size:13px;line-height:18px;color:${style.linkColor};">${card.site}</p>`
      : ""
  }</td>${imageCell}</tr></table>`;
}

function emailEmbed(block: Element, style: EmailBlockStyle): string {
  const card = cardParts(block);
  if (!card.href) return "";
  const provider = block.attribs["data-provider"] ?? "";
  const action = isEmbedProvider(provider) ? EMBED_PROVIDERS[provider].action : card.site;
  // The thumbnail is a picture of the video, not the video: mail has no players (no iframes).
  const thumbnail = card.imageSrc
    ? `<tr><td style="padding:0;"><a href="${card.href}" target="_blank" rel="noopener" data-text="skip"><img src="${card.imageSrc}" alt="${card.imageAlt || card.title || escapeHtml(action)}" width="${style.width - 2}" style="display:block;width:100%;max-width:${style.width - 2}px;height:auto;border:0;border-radius:6px 6px 0 0;"></a></td></tr>`
    : "";
  return `<table ${TABLE} width="100%" style="margin:0 0 16px;${CARD_BORDER}">${thumbnail}<tr><td style="padding:12px 16px;"><p style="margin:0;font-size:14px;line-height:20px;font-weight:700;"><a href="${card.href}" target="_blank" rel="noopener" style="color:${style.linkColor};text-decoration:none;">${provider === "youtube" || provider === "vimeo" ? "▶ " : ""}${escapeHtml(action)}</a></p>${
    card.title
      ? `<p style="margin:4px 0 0;font-size:16px;line-height:22px;color:${style.textColor};">${card.title}</p>`
      : ""
  }</td></tr></table>`;
}

function replaceWith(element: Element, html: string) {
  const fresh = parseDocument(html).children;
  for (const node of fresh) DomUtils.prepend(element, node);
  DomUtils.removeElement(element);
}

function unwrap(element: Element) {
  for (const child of [...element.children]) DomUtils.prepend(element, child);
  DomUtils.removeElement(element);
}
