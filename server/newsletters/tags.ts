import { sql } from "kysely";
import { z } from "zod";
import type { Db } from "../db";
import { preparedQuery } from "../db/prepared";
import { tenantDb } from "../db/tenant-guard";
import type { TenantScope } from "../scope";
import { slugFor } from "./slugs";

/*
 * Tags (issue 15, part 2): a newsletter has several, in the writer's order; each tag has a page,
 * /newsletter/tag/{slug}. A tag lives as long as a newsletter uses it, so a typo does not stay in
 * the editor's suggestions after it is corrected.
 */

export const MAX_TAGS = 10;
export const MAX_TAG_LENGTH = 40;

export interface Tag {
  slug: string;
  name: string;
}

/** A tag with the number of published newsletters that carry it. */
export interface TagCount extends Tag {
  count: number;
}

/** A tag's slug: the title rule (ASCII letters and digits joined by hyphens); "" when none is left. */
export function tagSlug(name: string): string {
  const slug = slugFor(name);
  // slugFor falls back to "newsletter" for a title without letters; a tag has no such fallback.
  return slug === "newsletter" && !/newsletter/i.test(name) ? "" : slug;
}

/**
 * The editor's tag field: names separated by commas, as typed (the chips write the same). Blank
 * names are dropped, and names that make the same slug count once (the first spelling wins).
 */
export const tagsFieldSchema = z
  .string()
  .max(2_000, "Too many tags")
  .transform((text, ctx) => {
    const tags: Tag[] = [];
    for (const raw of text.split(",")) {
      const name = raw.replace(/\s+/g, " ").trim();
      if (!name) continue;
      if (name.length > MAX_TAG_LENGTH) {
        ctx.addIssue({
          code: "custom",
          message: `A tag must be at most ${MAX_TAG_LENGTH} characters`,
        });
        return z.NEVER;
      }
      const slug = tagSlug(name);
      if (!slug) {
        ctx.addIssue({ code: "custom", message: `The tag “${name}” needs a letter or a digit` });
        return z.NEVER;
      }
      if (!tags.some((tag) => tag.slug === slug)) tags.push({ slug, name });
    }
    if (tags.length > MAX_TAGS) {
      ctx.addIssue({ code: "custom", message: `A newsletter can have at most ${MAX_TAGS} tags` });
      return z.NEVER;
    }
    return tags;
  });

/**
 * Gives the newsletter exactly these tags, in this order, inside the caller's transaction. A tag
 * that exists keeps its name (the first spelling); tags no newsletter uses any more are removed.
 */
export async function setNewsletterTags(
  root: Db,
  tenantId: string,
  newsletterId: string,
  tags: readonly Tag[],
): Promise<void> {
  const db = tenantDb(root, tenantId);
  const now = new Date().toISOString();
  if (tags.length > 0) {
    await db
      .insertInto("tags")
      .values(tags.map((tag) => ({ tenant_id: tenantId, ...tag, created_at: now })))
      .onConflict((conflict) => conflict.columns(["tenant_id", "slug"]).doNothing())
      .execute();
  }
  await db.deleteFrom("newsletter_tags").where("newsletter_id", "=", newsletterId).execute();
  if (tags.length > 0) {
    await db
      .insertInto("newsletter_tags")
      .values(
        tags.map((tag, position) => ({
          tenant_id: tenantId,
          newsletter_id: newsletterId,
          tag_slug: tag.slug,
          position,
        })),
      )
      .execute();
  }
  await removeUnusedTags(db, tenantId);
}

/** Tags no newsletter of the tenant carries (after an edit or a delete). */
export async function removeUnusedTags(root: Db, tenantId: string): Promise<void> {
  await tenantDb(root, tenantId)
    .deleteFrom("tags")
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("newsletter_tags")
            .select(sql`1`.as("one"))
            .whereRef("newsletter_tags.tag_slug", "=", "tags.slug"),
        ),
      ),
    )
    .execute();
}

/** The tags of each newsletter named, in the writer's order. */
export async function tagsOfNewsletters(
  ctx: TenantScope,
  newsletterIds: readonly string[],
): Promise<Map<string, Tag[]>> {
  const byNewsletter = new Map<string, Tag[]>(newsletterIds.map((id) => [id, []]));
  if (newsletterIds.length === 0) return byNewsletter;
  const [only] = newsletterIds;
  const rows =
    newsletterIds.length === 1
      ? await tagsOfOne(tenantDb(ctx.db, ctx.tenantId), { newsletter: only })
      : await tagsOfMany(ctx, newsletterIds);
  for (const row of rows) {
    byNewsletter.get(row.newsletter_id)?.push({ slug: row.slug, name: row.name });
  }
  return byNewsletter;
}

// An article's page reads its own tags on every render (compiled once per tenant's database).
const tagsOfOne = preparedQuery<
  "newsletter",
  { newsletter_id: string; slug: string; name: string }
>((db, value) =>
  db
    .selectFrom("newsletter_tags")
    .innerJoin("tags", "tags.slug", "newsletter_tags.tag_slug")
    .select(["newsletter_tags.newsletter_id", "tags.slug", "tags.name"])
    .where("newsletter_tags.newsletter_id", "=", value("newsletter"))
    .orderBy("newsletter_tags.position"),
);

function tagsOfMany(ctx: TenantScope, newsletterIds: readonly string[]) {
  return tenantDb(ctx.db, ctx.tenantId)
    .selectFrom("newsletter_tags")
    .innerJoin("tags", "tags.slug", "newsletter_tags.tag_slug")
    .select(["newsletter_tags.newsletter_id", "tags.slug", "tags.name"])
    .where("newsletter_tags.newsletter_id", "in", [...newsletterIds])
    .orderBy("newsletter_tags.position")
    .execute();
}

/** Every tag of the tenant (the editor's suggestions), by name. */
export async function listTags(ctx: TenantScope): Promise<Tag[]> {
  return tenantDb(ctx.db, ctx.tenantId)
    .selectFrom("tags")
    .select(["slug", "name"])
    .orderBy("name")
    .execute();
}

/** The tags readers can browse: those on at least one published newsletter, most used first. */
export async function listPublishedTags(ctx: TenantScope): Promise<TagCount[]> {
  const rows = await tenantDb(ctx.db, ctx.tenantId)
    .selectFrom("newsletter_tags")
    .innerJoin("tags", "tags.slug", "newsletter_tags.tag_slug")
    .innerJoin("newsletters", "newsletters.id", "newsletter_tags.newsletter_id")
    .select(["tags.slug", "tags.name", (eb) => eb.fn.countAll<number>().as("count")])
    .where("newsletters.status", "=", "published")
    .groupBy(["tags.slug", "tags.name"])
    .orderBy("count", "desc")
    .orderBy("tags.name")
    .execute();
  return rows.map((row) => ({ slug: row.slug, name: row.name, count: Number(row.count) }));
}

/** One tag of the tenant, or null. */
export async function getTag(ctx: TenantScope, slug: string): Promise<Tag | null> {
  const row = await tenantDb(ctx.db, ctx.tenantId)
    .selectFrom("tags")
    .select(["slug", "name"])
    .where("slug", "=", slug)
    .executeTakeFirst();
  return row ?? null;
}
