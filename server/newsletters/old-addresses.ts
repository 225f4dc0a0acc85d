import type { TenantScope } from "../scope";
import { currentSlugFor, TOP_LEVEL_SEGMENTS } from "./slugs";

/*
 * Links to a newsletter's old home keep working after an import (issue 33): Ghost's `/{slug}/`
 * and Substack's `/p/{slug}` on the tenant's site answer 301 to /newsletter/{slug}. Only paths no
 * route of Herald's answers reach this (the catch-all's loader asks), so it never shadows a page;
 * and only a slug a published newsletter has, or had, is redirected — anything else stays a 404.
 */

const GHOST_PATH = /^\/([a-z0-9]+(?:-[a-z0-9]+)*)\/?$/i;
const SUBSTACK_PATH = /^\/p\/([a-z0-9]+(?:-[a-z0-9]+)*)\/?$/i;

/** Where an old Ghost or Substack address of this tenant's newsletter now lives, or null. */
export async function oldNewsletterAddress(
  ctx: TenantScope,
  pathname: string,
): Promise<string | null> {
  const slug = (GHOST_PATH.exec(pathname) ?? SUBSTACK_PATH.exec(pathname))?.[1]?.toLowerCase();
  if (!slug) return null;
  // `/admin` is the site's own, whatever slug an import left before issue 44 (finding 11).
  if (GHOST_PATH.test(pathname) && TOP_LEVEL_SEGMENTS.has(slug)) return null;
  const current = await currentSlugFor(ctx, slug);
  return current ? `/newsletter/${current}` : null;
}
