import slugify from "slugify";

/*
 * Readable newsletter URLs (issue 15, part 1): /newsletter/{slug}. A slug is made from the title,
 * is unique within its tenant, and every slug a newsletter ever had keeps leading to it (301).
 */

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const MAX_SLUG_LENGTH = 120;

/** Words under /newsletter/ that are pages of their own, never a newsletter's slug. */
const RESERVED = new Set(["subscribe", "rss", "tag", "tags", "search", "page", "archive"]);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The slug a title suggests: lower case, ASCII letters and digits joined by hyphens. */
export function slugFor(title: string): string {
  const slug = slugify(title, { lower: true, strict: true, trim: true })
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/-+$/, "");
  return slug || "newsletter";
}

/** A slug nobody else may take: reserved words and id-shaped slugs would shadow other URLs. */
export function isUsableSlug(slug: string): boolean {
  return (
    slug.length <= MAX_SLUG_LENGTH &&
    SLUG_PATTERN.test(slug) &&
    !RESERVED.has(slug) &&
    !UUID.test(slug)
  );
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
