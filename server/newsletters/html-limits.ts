import { Parser } from "htmlparser2";
import { sanitizeNewsletterHtml } from "./sanitize";

/*
 * How much HTML one imported post may hold (issue 44, findings 2 and 8). A post of 20,000 nested
 * <div> or a million inline tags costs seconds to clean and to render on every uncached view:
 * such a post is refused, by name, before it is cleaned. The counts are taken by a streaming
 * parser that stops at the first limit passed (no tree is built).
 */

export const IMPORT_HTML_LIMITS = {
  /** characters of one post's HTML */
  maxChars: 2_000_000,
  /** elements open inside each other */
  maxDepth: 100,
  /** elements in the post */
  maxElements: 30_000,
};

export type HtmlLimits = typeof IMPORT_HTML_LIMITS;

class Passed extends Error {}

/**
 * Why `html` is over the limits, as a sentence about "Its HTML" (for a report naming the post),
 * or null when it is within them.
 */
export function htmlLimitProblem(html: string, limits: HtmlLimits = IMPORT_HTML_LIMITS) {
  const number = (value: number) => value.toLocaleString("en");
  if (html.length > limits.maxChars) {
    return `Its HTML is ${number(html.length)} characters long; at most ${number(limits.maxChars)} are imported.`;
  }
  let depth = 0;
  let elements = 0;
  let problem: string | null = null;
  const parser = new Parser(
    {
      onopentag() {
        depth++;
        elements++;
        if (depth > limits.maxDepth) {
          problem = `Its HTML nests elements more than ${number(limits.maxDepth)} deep; at most ${number(limits.maxDepth)} levels are imported.`;
          throw new Passed();
        }
        if (elements > limits.maxElements) {
          problem = `Its HTML has more than ${number(limits.maxElements)} elements; at most ${number(limits.maxElements)} are imported.`;
          throw new Passed();
        }
      },
      onclosetag() {
        depth = Math.max(0, depth - 1);
      },
    },
    { decodeEntities: false },
  );
  try {
    parser.end(html);
  } catch (error) {
    if (!(error instanceof Passed)) throw error;
  }
  return problem;
}

/**
 * An imported newsletter's HTML within the limits and cleaned as for display (finding 8: no
 * `<script>`, no `onerror` is ever stored); `refuse` makes the error naming `title` otherwise.
 */
export function cleanImportedHtml(
  html: string,
  title: string,
  refuse: (message: string) => Error,
): string {
  const problem = htmlLimitProblem(html);
  if (problem) throw refuse(`The newsletter “${title}” is refused. ${problem}`);
  return sanitizeNewsletterHtml(html);
}
