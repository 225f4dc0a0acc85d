import type sanitizeHtml from "sanitize-html";
import {
  BLOCK_KINDS,
  CALLOUT_TONES,
  CARD_PARTS,
  EMBED_PROVIDERS,
  MAX_CALLOUT_ICON_LENGTH,
} from "../../shared/blocks";

/*
 * What the sanitiser lets through of the editor's blocks (shared/blocks.ts): a <div> only as a
 * block, each data attribute only with a value the blocks know, a callout's icon only a few
 * characters. Everything else about a block (its link, its image) is checked by the rules for <a>
 * and <img> like any other.
 */

export const BLOCK_TAGS = ["div"];

export const BLOCK_ATTRIBUTES: Record<string, sanitizeHtml.AllowedAttribute[]> = {
  div: [
    { name: "data-block", multiple: false, values: [...BLOCK_KINDS] },
    { name: "data-tone", multiple: false, values: [...CALLOUT_TONES] },
    { name: "data-provider", multiple: false, values: Object.keys(EMBED_PROVIDERS) },
    "data-icon",
  ],
  span: [{ name: "data-part", multiple: false, values: [...CARD_PARTS] }],
  img: [{ name: "data-part", multiple: false, values: ["image"] }],
};

/** A callout's icon kept to a few characters. */
export const blockTransforms: Record<string, sanitizeHtml.Transformer> = {
  div: (tagName, attribs) => {
    const { "data-icon": icon, ...rest } = attribs;
    const shortIcon = [...(icon ?? "").trim()].slice(0, MAX_CALLOUT_ICON_LENGTH).join("");
    const callout = attribs["data-block"] === "callout";
    return { tagName, attribs: callout && shortIcon ? { ...rest, "data-icon": shortIcon } : rest };
  },
};

/**
 * A <div> that is not one of the blocks loses its tag (pasted layout divs) and keeps its content.
 * (Not a transform to an unknown tag: sanitize-html then closes the next same-depth tag wrongly.)
 */
export function excludeForeignDiv(frame: sanitizeHtml.IFrame): boolean | "excludeTag" {
  if (frame.tag !== "div") return false;
  const kind = frame.attribs["data-block"] ?? "";
  return (BLOCK_KINDS as readonly string[]).includes(kind) ? false : "excludeTag";
}
