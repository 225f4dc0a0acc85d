import { Parser } from "htmlparser2";

const ABSOLUTE = /^(?:https?:\/\/[^/\s]+|mailto:|tel:)/i;
const URL_ATTRIBUTES = new Set(["href", "src", "background", "action", "poster"]);

/**
 * Every URL in a received mail's HTML (href, src, srcset, CSS url()) and in its List-Unsubscribe
 * header that is not absolute http(s), mailto: or tel: — what a real inbox could not open (issue 12).
 */
export function relativeUrlsIn(html: string, headers: Map<string, string> = new Map()): string[] {
  const found: string[] = [];
  const check = (url: string, where: string) => {
    const value = url.trim();
    if (!ABSOLUTE.test(value)) found.push(`${where}: ${value || "(empty)"}`);
  };
  const checkCss = (css: string, where: string) => {
    for (const match of css.matchAll(/url\(\s*(['"]?)(.*?)\1\s*\)/gi)) check(match[2] ?? "", where);
  };
  let inStyle = false;
  const parser = new Parser({
    onopentag(name, attributes) {
      inStyle = name === "style";
      for (const [attribute, value] of Object.entries(attributes)) {
        const where = `<${name} ${attribute}>`;
        if (URL_ATTRIBUTES.has(attribute)) check(value, where);
        else if (attribute === "srcset") {
          for (const candidate of value.split(","))
            check(candidate.trim().split(/\s+/)[0] ?? "", where);
        } else if (attribute === "style") checkCss(value, where);
      }
    },
    ontext(text) {
      if (inStyle) checkCss(text, "<style>");
    },
    onclosetag() {
      inStyle = false;
    },
  });
  parser.write(html);
  parser.end();
  const unsubscribe = headers.get("list-unsubscribe");
  if (unsubscribe) {
    for (const match of unsubscribe.matchAll(/<([^>]*)>/g))
      check(match[1] ?? "", "List-Unsubscribe");
  }
  return found;
}
