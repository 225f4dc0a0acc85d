/** Small helpers for reading server-rendered HTML in integration tests. */
export function textOf(html: string): string {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ");
}

/** Markup with its entities decoded (what a textarea or an attribute holds, as written). */
export function decodeHtml(html: string): string {
  return html
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&amp;/g, "&");
}

export function metaContent(
  html: string,
  attribute: "name" | "property",
  key: string,
): string | null {
  const match = html.match(new RegExp(`<meta ${attribute}="${key}" content="([^"]*)"`));
  return match ? match[1] : null;
}

export function titleOf(html: string): string | null {
  return html.match(/<title>([^<]*)<\/title>/)?.[1] ?? null;
}
