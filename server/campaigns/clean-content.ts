import { sanitizeNewsletterHtml } from "../newsletters/sanitize";

/**
 * SPEC §5's clean-up of a campaign's content before it is wrapped for email: escaped angle brackets
 * decoded; title, html, head and body tags stripped; empty divs, repeated line breaks, empty
 * paragraphs and a lone "Newsletter" line removed. The result is sanitised again, because decoding
 * `&lt;script&gt;` would otherwise turn text into markup.
 */
export function cleanCampaignContent(content: string): string {
  const cleaned = content
    .replace(/&lt;/gi, "<")
    .replace(/&gt;/gi, ">")
    .replace(/<title\b[^>]*>[\s\S]*?<\/title\s*>/gi, "")
    .replace(/<\/?(?:html|head|body)\b[^>]*>/gi, "")
    // a line, a paragraph or a heading that says only "Newsletter" (a pasted page's masthead)
    .replace(/<(p|h[1-6]|div)\b[^>]*>\s*Newsletter\s*<\/\1\s*>/gi, "")
    .replace(/^[ \t]*Newsletter[ \t]*$/gim, "")
    .replace(/(?:<br\s*\/?>\s*){2,}/gi, "<br>")
    .replace(/\n{3,}/g, "\n\n");
  return removeEmpty(sanitizeNewsletterHtml(removeEmpty(cleaned))).trim();
}

/** Empty divs and paragraphs (nothing, spaces, &nbsp; or lone <br>s inside), innermost first. */
function removeEmpty(html: string): string {
  const empty = /<(div|p)\b[^>]*>(?:\s|&nbsp;|&#160;|<br\s*\/?>)*<\/\1\s*>/gi;
  let previous: string;
  let current = html;
  do {
    previous = current;
    current = current.replace(empty, "");
  } while (current !== previous);
  return current;
}
