import { DomUtils, parseDocument } from "htmlparser2";
import { MAX_CARD_DESCRIPTION_LENGTH, MAX_CARD_TITLE_LENGTH, webUrl } from "../../shared/blocks";
import { createRateLimit } from "../http/rate-limit";
import { FetchRefused, fetchOutside } from "../http/safe-fetch";

/*
 * A bookmark card's details taken from the page it links to (its Open Graph tags, else its <title>
 * and description), when the server can reach it. Never required: the editor fills in only what
 * staff left blank, and a page that cannot be read leaves the card as typed.
 */

export interface LinkPreview {
  title: string;
  description: string;
  /** an absolute http(s) address, or "" */
  image: string;
}

/** A page's head is enough; the rest of a large page is not read. */
const MAX_PAGE_BYTES = 1024 * 1024;
const PAGE_TIMEOUT_MS = 8_000;

export class LinkPreviewError extends Error {}

// Each preview makes the server fetch a page: an editor pastes a few links a session, so 60 a
// staff member per 10 minutes, and a script that loops on this route is stopped.
const previews = createRateLimit({ name: "link-preview", points: 60, windowSeconds: 600 });
export const LINK_PREVIEWS_RATE_LIMITED =
  "Too many link previews asked for in a short time. Wait a few minutes and try again.";

/** Takes one of the staff member's link previews; false when they asked for too many lately. */
export function takeLinkPreviewAllowance(tenantId: string, actor: string): Promise<boolean> {
  return previews.take(`${tenantId}:${actor}`);
}

export async function readLinkPreview(
  address: string,
  /** `timeoutMs`: the whole fetch's deadline (8 s unless a test shortens it) */
  options: { allowPrivate: boolean; timeoutMs?: number },
): Promise<LinkPreview> {
  const url = webUrl(address);
  if (!url) throw new LinkPreviewError("Only http and https addresses can be read.");
  try {
    const page = await fetchOutside(url, {
      allowPrivate: options.allowPrivate,
      userAgent: "Herald link preview",
      accept: "text/html,application/xhtml+xml",
      type: /^(text\/html|application\/xhtml\+xml)\b/i,
      typeProblem: "it is not a web page",
      maxBytes: MAX_PAGE_BYTES,
      maxSize: "1 MB",
      timeoutMs: options.timeoutMs ?? PAGE_TIMEOUT_MS,
    });
    return previewOf(decode(page.bytes, page.contentType), page.url);
  } catch (error) {
    if (error instanceof FetchRefused) {
      throw new LinkPreviewError(`The page could not be read: ${error.message}.`);
    }
    throw error;
  }
}

function decode(bytes: Uint8Array, contentType: string): string {
  const charset = /charset="?([\w-]+)/i.exec(contentType)?.[1] ?? "utf-8";
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes);
  }
}

/** The title, description and image a page's head names, the image made absolute. */
export function previewOf(html: string, pageUrl: URL): LinkPreview {
  const document = parseDocument(html);
  const metas = DomUtils.getElementsByTagName("meta", document.children);
  const meta = (...names: string[]) => {
    for (const name of names) {
      const found = metas.find(
        (element) => (element.attribs.property ?? element.attribs.name)?.toLowerCase() === name,
      );
      const content = found?.attribs.content?.trim();
      if (content) return content;
    }
    return "";
  };
  const titleTag = DomUtils.findOne((node) => node.name === "title", document.children);
  const clip = (text: string, length: number) =>
    [...text.replace(/\s+/g, " ").trim()].slice(0, length).join("");
  const image = meta("og:image:secure_url", "og:image", "og:image:url", "twitter:image");
  let absoluteImage = "";
  try {
    absoluteImage = image ? (webUrl(new URL(image, pageUrl).toString()) ?? "") : "";
  } catch {
    absoluteImage = "";
  }
  return {
    title: clip(
      meta("og:title", "twitter:title") || (titleTag ? DomUtils.textContent(titleTag) : ""),
      MAX_CARD_TITLE_LENGTH,
    ),
    description: clip(
      meta("og:description", "twitter:description", "description"),
      MAX_CARD_DESCRIPTION_LENGTH,
    ),
    image: absoluteImage,
  };
}
