import { createHash } from "node:crypto";
import type { ReactNode } from "react";
import { renderToString } from "react-dom/server";

// Bounds: a hundred lists of up to 100,000 characters is at most 20 MB of strings.
const MAX_KEPT = 100;
const MAX_MARKUP_LENGTH = 100_000;
const kept = new Map<string, string>();

/**
 * The markup of a part of a page that is a pure function of `data` (a comment list), rendered
 * once per distinct data and kept, newest use last. The same list goes to every reader until a
 * comment changes it, and rendering 50 comments is a fifth of an article's render. The key is a
 * digest of the data itself, so no change has to be announced: changed data is a new key, and the
 * old markup ages out. `data` must hold everything `render` reads.
 *
 * Rendered outside the page's render (in a loader): React's renderer does not nest.
 */
export function keptMarkup(data: unknown, render: () => ReactNode): string {
  const key = createHash("sha1").update(JSON.stringify(data)).digest("base64");
  const hit = kept.get(key);
  if (hit !== undefined) {
    kept.delete(key);
    kept.set(key, hit);
    return hit;
  }
  const markup = renderToString(render());
  if (markup.length <= MAX_MARKUP_LENGTH) {
    if (kept.size >= MAX_KEPT) {
      const oldest = kept.keys().next().value;
      if (oldest !== undefined) kept.delete(oldest);
    }
    kept.set(key, markup);
  }
  return markup;
}
