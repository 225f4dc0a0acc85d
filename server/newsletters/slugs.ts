import slugify from "slugify";
import type { Db } from "../db";
import { tenantDb } from "../db/tenant-guard";
import type { TenantScope } from "../scope";
import { NewsletterSlugTakenError } from "./errors";

/*
 * Readable newsletter URLs (issue 15, part 1): /newsletter/{slug}. A slug is made from the title,
 * is unique within its tenant, and every slug a newsletter ever had keeps leading to it (301).
 */

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const MAX_SLUG_LENGTH = 120;

/** Words under /newsletter/ that are pages of their own, never a newsletter's slug. */
const RESERVED = new Set(["subscribe", "rss", "tag", "tags", "search", "page", "archive"]);

/**
 * The site's own first path segments: every static first segment of app/routes.ts (slugs.test.ts
 * fails when one is missing here), the old Substack addresses' `p` and the build's `assets`. A
 * newsletter slug is also its old address `/{slug}` (old-addresses.ts), so none of these is ever
 * given out (issue 44, finding 11: an imported `../../admin` made `/admin` a redirect).
 */
export const TOP_LEVEL_SEGMENTS: ReadonlySet<string> = new Set([
  "about",
  "admin",
  "api",
  "assets",
  "brand",
  "contact",
  "embed",
  "healthz",
  "login",
  "metrics",
  "newsletter",
  "newsletters",
  "p",
  "preferences",
  "privacy",
  "products",
  "robots",
  "services",
  "sitemap",
  "subscription",
  "t",
  "terms",
  "test",
  "unauthorized",
  "unsubscribe",
  "uploads",
]);

/** The message for a slug the writer typed that is one of the site's own addresses. */
export const topLevelSlugMessage = (slug: string) =>
  `/${slug} is one of the site's own addresses. Choose another URL.`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The slug a title suggests: lower case, ASCII letters and digits joined by hyphens. */
export function slugFor(title: string): string {
  const slug = slugify(title, { lower: true, strict: true, trim: true })
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/-+$/, "");
  return slug || "newsletter";
}

/**
 * A slug /newsletter/{slug} can serve: reserved words and id-shaped slugs would shadow other URLs.
 * One given out before issue 44 may be one of TOP_LEVEL_SEGMENTS, and still serves.
 */
export function isServableSlug(slug: string): boolean {
  return (
    slug.length <= MAX_SLUG_LENGTH &&
    SLUG_PATTERN.test(slug) &&
    !RESERVED.has(slug) &&
    !UUID.test(slug)
  );
}

/** A slug that may be given out now: servable, and not one of the site's own first segments. */
export function isUsableSlug(slug: string): boolean {
  return isServableSlug(slug) && !TOP_LEVEL_SEGMENTS.has(slug);
}

/** `base`, or `base-2`, `base-3`… — the first that `taken` does not hold. */
export function firstFreeSlug(base: string, taken: (slug: string) => boolean): string {
  const stem = isUsableSlug(base) ? base : `${base.slice(0, MAX_SLUG_LENGTH - 2)}-1`;
  if (!taken(stem) && isUsableSlug(stem)) return stem;
  for (let n = 2; ; n++) {
    const candidate = `${stem.slice(0, MAX_SLUG_LENGTH - String(n).length - 1)}-${n}`;
    if (!taken(candidate)) return candidate;
  }
}

// Every slug a newsletter had is kept in newsletter_slugs, written here only.

/**
 * The slug a newsletter gets: `wanted` when free (or already its own, now or before); else, for a
 * suggested slug, the first free `wanted-2`, `-3`…, and for one the writer typed, an error.
 */
export async function claimSlug(
  root: Db,
  tenantId: string,
  newsletterId: string,
  wanted: string,
  options: { exact: boolean },
): Promise<string> {
  const holders = await tenantDb(root, tenantId)
    .selectFrom("newsletter_slugs")
    .select(["slug", "newsletter_id"])
    .where("slug", "like", `${wanted}%`)
    .execute();
  const taken = new Map(holders.map((holder) => [holder.slug, holder.newsletter_id]));
  const free = (slug: string) => !taken.has(slug) || taken.get(slug) === newsletterId;
  if (options.exact) {
    if (!free(wanted)) throw new NewsletterSlugTakenError();
    return wanted;
  }
  return firstFreeSlug(wanted, (slug) => !free(slug));
}

/** Remembers a slug the newsletter has had (a second time changes nothing). */
export async function recordSlug(
  db: Db,
  tenantId: string,
  newsletterId: string,
  slug: string,
  at: string,
) {
  await db
    .insertInto("newsletter_slugs")
    .values({ tenant_id: tenantId, slug, newsletter_id: newsletterId, created_at: at })
    .onConflict((conflict) => conflict.columns(["tenant_id", "slug"]).doNothing())
    .execute();
}

/**
 * Where an old address of a published newsletter now lives: its current slug, for a slug it had
 * before or for its id (the URLs before slugs). Null when neither names a published newsletter.
 */
export async function currentSlugFor(
  ctx: TenantScope,
  idOrOldSlug: string,
): Promise<string | null> {
  const row = await tenantDb(ctx.db, ctx.tenantId)
    .selectFrom("newsletters")
    .select("newsletters.slug")
    .where("newsletters.status", "=", "published")
    .where((eb) =>
      eb.or([
        eb("newsletters.id", "=", idOrOldSlug),
        eb(
          "newsletters.id",
          "in",
          eb
            .selectFrom("newsletter_slugs")
            .select("newsletter_id")
            .where("newsletter_slugs.slug", "=", idOrOldSlug),
        ),
      ]),
    )
    .executeTakeFirst();
  return row?.slug ?? null;
}
