/*
 * HTML entities in text that other platforms export (issue 33): Ghost and Substack keep some names,
 * titles and notes HTML-escaped ("Tom &amp; Jerry"). One table and one decoder for the member
 * imports (server/subscribers/import-sources.ts) and the archive imports
 * (server/newsletters/archive-formats.ts).
 */

const NAMED_ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  rsquo: "’",
  lsquo: "‘",
  rdquo: "”",
  ldquo: "“",
  mdash: "—",
  ndash: "–",
  hellip: "…",
  copy: "©",
  reg: "®",
  trade: "™",
  eacute: "é",
  egrave: "è",
  aacute: "á",
  agrave: "à",
  iacute: "í",
  oacute: "ó",
  uacute: "ú",
  ntilde: "ñ",
  ccedil: "ç",
  ouml: "ö",
  uuml: "ü",
  auml: "ä",
  szlig: "ß",
};

/**
 * Text as a reader saw it: named entities of the table above and numeric ones decoded. An entity
 * it does not know stays as written; a numeric one naming no character (zero, too large, a lone
 * surrogate half) becomes `invalid` (by default it stays as written too).
 */
export function decodeEntities(text: string, invalid?: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, body: string) => {
    if (body[0] === "#") {
      const code =
        body[1] === "x" || body[1] === "X"
          ? Number.parseInt(body.slice(2), 16)
          : Number.parseInt(body.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff)
        ? String.fromCodePoint(code)
        : (invalid ?? whole);
    }
    return NAMED_ENTITIES[body.toLowerCase()] ?? whole;
  });
}

/** Text or an attribute value written into HTML. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}
