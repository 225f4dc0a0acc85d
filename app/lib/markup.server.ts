import { hash } from "node:crypto";
import { createElement, type ReactNode } from "react";
import { renderToString } from "react-dom/server";
import { MiB, memoryCache, stringBytes } from "../../server/memory-cache";
import { type KeptMarkupStore, PageScriptsContext } from "./page-scripts";

// A comment list of 200 comments is about 100 KB of markup: 16 MiB keeps the busy pages' lists.
const kept = memoryCache<string, string>({
  maxBytes: 16 * MiB,
  maxEntryBytes: stringBytes("x".repeat(100_000)),
  bytesOf: (markup, key) => stringBytes(markup) + stringBytes(key),
});

// The digest of each data object seen: a list kept elsewhere (the readers' comments of a page
// version) comes back as the same object, and hashing its JSON cost as much as rendering it.
const digests = new WeakMap<object, string>();

/**
 * The markup of a part of a page that is a pure function of `data` (a comment list), rendered
 * once per distinct data and kept, newest use last. The same list goes to every reader until a
 * comment changes it, and rendering 50 comments is a fifth of an article's render. The key is
 * `name` and a digest of the data itself, so no change has to be announced: changed data is a new
 * key, and the old markup ages out. `data` must hold everything `render` reads, and must not be
 * changed once passed here (its digest is remembered for the object). Kept least recently used
 * out first, within 16 MiB.
 *
 * Rendered outside the page's render (in a loader): React's renderer does not nest.
 */
export function keptMarkup(name: string, data: object, render: () => ReactNode): string {
  let digest = digests.get(data);
  if (digest === undefined) {
    digest = hash("sha1", JSON.stringify(data), "base64");
    digests.set(data, digest);
  }
  const key = `${name}\u0000${digest}`;
  const hit = kept.get(key);
  if (hit !== undefined) return hit;
  const markup = renderToString(render());
  kept.set(key, markup);
  return markup;
}

// <Kept> parts (app/lib/page-scripts.tsx): a header, a footer, an empty form, a card — a few KB
// each, so 8 MiB covers a busy site's hundreds; a part's key is its data, so it counts too.
const keptParts = memoryCache<string, string>({
  maxBytes: 8 * MiB,
  maxEntryBytes: stringBytes("x".repeat(20_000)),
  bytesOf: (markup, key) => stringBytes(markup) + stringBytes(key),
});

/**
 * The store of <Kept> parts for one page; `keep` ends it, after the render. A part's markup can
 * depend on whether the page has scripts (links carry `data-discover` for the browser's router),
 * so the two kinds of page keep apart.
 */
export interface PageKeptParts extends KeptMarkupStore {
  /**
   * Renders on its own, and keeps, each part the page asked to keep: with no router and nothing
   * of the request around it, only whether the page has scripts, so what is kept is a function of
   * its key. A part that fails alone (it read the location or the route's data) is not kept, and
   * is reported to `failed`: the page was rendered whole anyway.
   */
  keep(failed: (key: string, error: unknown) => void): void;
}

export function pageKeptParts(scripts: boolean): PageKeptParts {
  const kind = scripts ? "scripts\u0000" : "plain\u0000";
  const pending: [string, ReactNode][] = [];
  return {
    get(key) {
      return keptParts.get(`${kind}${key}`);
    },
    keepLater(key, content) {
      pending.push([key, content]);
    },
    keep(failed) {
      for (const [key, content] of pending) {
        let markup: string;
        try {
          markup = renderToString(createElement(PageScriptsContext, { value: scripts }, content));
        } catch (error) {
          failed(key, error);
          continue;
        }
        // Kept as one flat string: React's is a rope of a piece per tag and attribute, which
        // every page using it would walk again when it is encoded.
        keptParts.set(`${kind}${key}`, Buffer.from(markup).toString());
      }
    },
  };
}
