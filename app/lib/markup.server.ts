import { createHash } from "node:crypto";
import type { ReactNode } from "react";
import { renderToString } from "react-dom/server";
import { BoundedMap } from "../../shared/bounded-map";
import type { KeptMarkupStore } from "./page-scripts";

// Bounds: a hundred lists of up to 100,000 characters is at most 20 MB of strings.
const MAX_KEPT = 100;
const MAX_MARKUP_LENGTH = 100_000;
const kept = new BoundedMap<string, string>(MAX_KEPT);

// The digest of each data object seen: a list kept elsewhere (the readers' comments of a page
// version) comes back as the same object, and hashing its JSON cost as much as rendering it.
const digests = new WeakMap<object, string>();

/**
 * The markup of a part of a page that is a pure function of `data` (a comment list), rendered
 * once per distinct data and kept, newest use last. The same list goes to every reader until a
 * comment changes it, and rendering 50 comments is a fifth of an article's render. The key is
 * `name` and a digest of the data itself, so no change has to be announced: changed data is a new
 * key, and the old markup ages out. `data` must hold everything `render` reads, and must not be
 * changed once passed here (its digest is remembered for the object).
 *
 * Rendered outside the page's render (in a loader): React's renderer does not nest.
 */
export function keptMarkup(name: string, data: object, render: () => ReactNode): string {
  let digest = digests.get(data);
  if (digest === undefined) {
    digest = createHash("sha1").update(JSON.stringify(data)).digest("base64");
    digests.set(data, digest);
  }
  const key = `${name}\u0000${digest}`;
  const hit = kept.recall(key);
  if (hit !== undefined) return hit;
  const markup = renderToString(render());
  if (markup.length <= MAX_MARKUP_LENGTH) kept.set(key, markup);
  return markup;
}

// <Kept> parts (app/lib/page-scripts.tsx): a header, a footer, an empty form, a card — a few KB at
// most each, so a few hundred cover a busy site (a few MB).
const MAX_KEPT_PARTS = 500;
const MAX_PART_LENGTH = 20_000;
const keptParts = new BoundedMap<string, string>(MAX_KEPT_PARTS);

/**
 * The store of <Kept> parts for one page; `keep` ends it, after the render. A part's markup can
 * depend on whether the page has scripts (links carry `data-discover` for the browser's router),
 * so the two kinds of page keep apart.
 */
export interface PageKeptParts extends KeptMarkupStore {
  /**
   * Renders on its own, and keeps, each part the page asked to keep. `wrap` gives a part the
   * page's contexts it may read (the location, for links). A part that fails on its own is not
   * kept, and is reported to `failed`: the page was rendered whole anyway.
   */
  keep(
    wrap: (content: ReactNode) => ReactNode,
    failed: (key: string, error: unknown) => void,
  ): void;
}

export function pageKeptParts(scripts: boolean): PageKeptParts {
  const kind = scripts ? "scripts\u0000" : "plain\u0000";
  const pending: [string, ReactNode][] = [];
  return {
    get(key) {
      return keptParts.recall(`${kind}${key}`);
    },
    keepLater(key, content) {
      pending.push([key, content]);
    },
    keep(wrap, failed) {
      for (const [key, content] of pending) {
        let markup: string;
        try {
          markup = renderToString(wrap(content));
        } catch (error) {
          failed(key, error);
          continue;
        }
        if (markup.length > MAX_PART_LENGTH) continue;
        // Kept as one flat string: React's is a rope of a piece per tag and attribute, which
        // every page using it would walk again when it is encoded.
        keptParts.set(`${kind}${key}`, Buffer.from(markup).toString());
      }
    },
  };
}
