import { plural } from "../../shared/format";
import { isServableSlug } from "./slugs";

/**
 * Serving the newsletter page from the host's page cache while still counting every view
 * (issue #3's benchmark: ≥ 800 req/s, every view counted). The host counts the view itself, in one
 * statement that also returns the page's version; a cached render made with VIEW_SENTINEL as the view
 * count then gets the real count written in.
 */
export const VIEW_SENTINEL = 987_654_321;

const NEWSLETTER_PATH = /^\/newsletter\/([a-z0-9]+(?:-[a-z0-9]+)*)$/;

/**
 * The slug of a newsletter page's path. A path that is not a current slug (an old slug, an id)
 * counts nothing here: the page answers 301 to the current one, which counts.
 */
export function newsletterSlugFromPath(path: string): string | null {
  const slug = NEWSLETTER_PATH.exec(path)?.[1] ?? null;
  return slug && isServableSlug(slug) ? slug : null;
}

export { countNewsletterView } from "./newsletters";
export { classifyView, noteViewSource, viewOriginOf } from "./view-sources";

/** Where a page rendered with VIEW_SENTINEL shows the count: visible text and page data. */
export const VIEW_MARKERS = [plural(VIEW_SENTINEL, "view"), String(VIEW_SENTINEL)] as const;

/** Each view marker with the real count to put in its place (see splitPage / fillPage). */
export function viewCountValues(views: number): [string, string][] {
  return [
    [VIEW_MARKERS[0], plural(views, "view")],
    [VIEW_MARKERS[1], String(views)],
  ];
}
