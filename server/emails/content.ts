import sanitizeHtml from "sanitize-html";
import { emailBlocksHtml } from "../content/blocks";
import { NEWSLETTER_HTML_OPTIONS } from "../newsletters/sanitize";
import { absoluteSrcset, absoluteUrl } from "./urls";

/** The mail's content column: a 600 px message less its 32 px side padding. */
export const EMAIL_CONTENT_WIDTH = 536;

export interface EmailContentStyle {
  /** the tenant's public origin: relative URLs resolve against it */
  origin: string;
  textColor: string;
  linkColor: string;
  /** natural size of an image the content names without width and height (uploaded images) */
  imageSize?: (src: string) => { width: number; height: number } | undefined;
}

/**
 * Newsletter content (already sanitised) as a mail carries it: every URL absolute on the tenant's
 * origin, images no wider than the column, and the typography inline, because several mail
 * clients drop `<style>` (issue 12).
 */
export function emailContentHtml(html: string, style: EmailContentStyle): string {
  const inline = inlineStyles(style);
  const styled = (tagName: string, attribs: sanitizeHtml.Attributes) => ({
    tagName,
    attribs: inline[tagName] ? { ...attribs, style: inline[tagName] } : attribs,
  });
  const transformTags: Record<string, sanitizeHtml.Transformer> = {};
  for (const tag of Object.keys(inline)) transformTags[tag] = styled;
  transformTags.a = (tagName, attribs) => {
    const href = attribs.href ? absoluteUrl(attribs.href, style.origin) : null;
    const { href: _dropped, ...rest } = attribs;
    return styled(tagName, href ? { ...rest, href } : rest);
  };
  transformTags.img = (tagName, attribs) => {
    const src = attribs.src ? absoluteUrl(attribs.src, style.origin) : null;
    const srcset = attribs.srcset ? absoluteSrcset(attribs.srcset, style.origin) : "";
    const size = src ? imageSize(attribs, src, style) : undefined;
    return {
      tagName,
      attribs: {
        src: src ?? "",
        alt: attribs.alt ?? attribs.title ?? "",
        ...(attribs.title ? { title: attribs.title } : {}),
        ...(srcset ? { srcset } : {}),
        ...(size ? { width: String(size.width) } : {}),
        ...(size?.height ? { height: String(size.height) } : {}),
        // Fluid: the width attribute for Outlook, CSS that lets phones shrink it (a table cell
        // never shrinks below an image's fixed width, whatever its max-width).
        style: size
          ? `${inline.img}width:100%;max-width:${size.width}px;`
          : `${inline.img}max-width:100%;`,
      },
    };
  };
  const mailHtml = sanitizeHtml(html, {
    ...NEWSLETTER_HTML_OPTIONS,
    allowedAttributes: withStyle(NEWSLETTER_HTML_OPTIONS.allowedAttributes, Object.keys(inline), {
      img: ["srcset"],
    }),
    allowedSchemesByTag: { img: ["http", "https"] },
    transformTags,
    // An image whose address a mail cannot load (data:, another scheme) is left out.
    exclusiveFilter: (frame) => frame.tag === "img" && !frame.attribs.src,
  });
  // The editor's blocks as tables, "web only" sections left out (shared/blocks.ts).
  return emailBlocksHtml(mailHtml, {
    textColor: style.textColor,
    linkColor: style.linkColor,
    width: EMAIL_CONTENT_WIDTH,
  });
}

/** Width and height for the mail: the image's own, scaled down to fit the column. */
function imageSize(
  attribs: sanitizeHtml.Attributes,
  src: string,
  style: EmailContentStyle,
): { width: number; height?: number } | undefined {
  const width = Number(attribs.width);
  const height = Number(attribs.height);
  const natural: { width: number; height?: number } | undefined =
    width > 0 && height > 0
      ? { width, height }
      : (style.imageSize?.(src) ?? (width > 0 ? { width } : undefined));
  if (!natural) return undefined;
  const shown = Math.min(natural.width, EMAIL_CONTENT_WIDTH);
  return {
    width: Math.round(shown),
    height: natural.height ? Math.round((natural.height * shown) / natural.width) : undefined,
  };
}

function withStyle(
  allowed: sanitizeHtml.IOptions["allowedAttributes"],
  tags: string[],
  extra: Record<string, string[]>,
): Record<string, sanitizeHtml.AllowedAttribute[]> {
  const result: Record<string, sanitizeHtml.AllowedAttribute[]> = { ...(allowed || {}) };
  for (const tag of tags) result[tag] = [...(result[tag] ?? []), "style"];
  for (const [tag, names] of Object.entries(extra))
    result[tag] = [...(result[tag] ?? []), ...names];
  return result;
}

function inlineStyles({ textColor, linkColor }: EmailContentStyle): Record<string, string> {
  // Colour, size, line height and wrapping are inherited from the layout's content cell (inline
  // there too); each tag sets only what clients disagree on. Every byte is sent per recipient.
  const heading = "font-weight:700;margin:24px 0 12px;";
  return {
    h1: `${heading}font-size:28px;line-height:34px;`,
    h2: `${heading}font-size:22px;line-height:28px;`,
    h3: `${heading}font-size:18px;line-height:24px;`,
    h4: `${heading}font-size:16px;line-height:22px;`,
    p: "margin:0 0 16px;",
    ul: "margin:0 0 16px;padding:0 0 0 24px;",
    ol: "margin:0 0 16px;padding:0 0 0 24px;",
    li: "margin:0 0 6px;",
    blockquote: `margin:0 0 16px;padding:0 0 0 14px;border-left:4px solid ${linkColor};font-style:italic;`,
    a: `color:${linkColor};text-decoration:underline;`,
    img: "display:block;height:auto;border:0;margin:16px 0;",
    pre: "background-color:#f4f4f5;color:#18181b;padding:12px;margin:0 0 16px;font-size:13px;line-height:20px;white-space:pre-wrap;",
    code: "font-family:Menlo,Consolas,monospace;font-size:14px;",
    hr: "border:0;border-top:1px solid #e4e4e7;margin:24px 0;",
    table: "border-collapse:collapse;margin:0 0 16px;",
    th: `border:1px solid #d4d4d8;padding:6px 8px;text-align:left;color:${textColor};`,
    td: `border:1px solid #d4d4d8;padding:6px 8px;color:${textColor};`,
    figure: "margin:0;",
    figcaption: "color:#52525b;font-size:13px;line-height:18px;margin:4px 0 16px;",
  };
}
