import { tenantDb } from "../db/tenant-guard";
import { NewsletterNotFoundError } from "../newsletters/errors";
import { getNewsletter } from "../newsletters/listing";
import type { Newsletter } from "../newsletters/model";
import { tagsOfNewsletters } from "../newsletters/tags";
import type { Scope } from "../scope";
import { type SocialTexts, socialTexts } from "./texts";

/*
 * A newsletter's social pack texts (issue 36), kept with the newsletter in `newsletter_social`:
 * made from the newsletter when the pack is first opened, and again each time while staff have not
 * saved words of their own (so they follow the newsletter's edits); once saved, kept as written
 * until "Reset to generated". The writer of `newsletter_social`.
 */

export type SocialScope = Pick<Scope, "db" | "tenantId" | "tenant" | "origin">;

export interface SocialPackTexts extends SocialTexts {
  /** staff saved their own words */
  edited: boolean;
}

/** The texts as made from the newsletter now (its title, excerpt, content, slug and tags). */
export async function generatedTexts(
  ctx: SocialScope,
  newsletter: Newsletter,
): Promise<SocialTexts> {
  const tags = (await tagsOfNewsletters(ctx, [newsletter.id])).get(newsletter.id) ?? [];
  return socialTexts({
    title: newsletter.title,
    excerpt: newsletter.excerpt,
    content: newsletter.content,
    slug: newsletter.slug,
    tags: tags.map((tag) => tag.name),
    origin: ctx.origin,
    companyName: ctx.tenant.branding.companyName,
  });
}

async function storedTexts(ctx: SocialScope, newsletterId: string) {
  return tenantDb(ctx.db, ctx.tenantId)
    .selectFrom("newsletter_social")
    .select(["linkedin_text", "short_text", "edited"])
    .where("newsletter_id", "=", newsletterId)
    .executeTakeFirst();
}

async function keep(
  ctx: SocialScope,
  newsletterId: string,
  texts: SocialTexts,
  edited: boolean,
): Promise<void> {
  const values = {
    linkedin_text: texts.linkedIn,
    short_text: texts.short,
    edited: edited ? 1 : 0,
    updated_at: new Date().toISOString(),
  };
  await tenantDb(ctx.db, ctx.tenantId)
    .insertInto("newsletter_social")
    .values({ tenant_id: ctx.tenantId, newsletter_id: newsletterId, ...values })
    .onConflict((oc) => oc.columns(["tenant_id", "newsletter_id"]).doUpdateSet(values))
    .execute();
}

async function newsletterOf(ctx: SocialScope, newsletterId: string): Promise<Newsletter> {
  const newsletter = await getNewsletter(ctx, newsletterId);
  if (!newsletter) throw new NewsletterNotFoundError(newsletterId);
  return newsletter;
}

/** The pack's texts of a newsletter of the tenant, with whether staff wrote them. */
export async function socialPackOf(
  ctx: SocialScope,
  newsletter: Newsletter,
): Promise<SocialPackTexts> {
  const stored = await storedTexts(ctx, newsletter.id);
  if (stored?.edited) {
    return { linkedIn: stored.linkedin_text, short: stored.short_text, edited: true };
  }
  const made = await generatedTexts(ctx, newsletter);
  if (stored?.linkedin_text !== made.linkedIn || stored?.short_text !== made.short) {
    await keep(ctx, newsletter.id, made, false);
  }
  return { ...made, edited: false };
}

/**
 * The LinkedIn post and the short post of a newsletter, as staff last saved them or as made from
 * it (for the LinkedIn publishing branch). Throws NewsletterNotFoundError for another tenant's.
 */
export async function socialPackTexts(
  ctx: SocialScope,
  newsletterId: string,
): Promise<SocialTexts> {
  const { linkedIn, short } = await socialPackOf(ctx, await newsletterOf(ctx, newsletterId));
  return { linkedIn, short };
}

/** Staff's own words (checked by shared/schemas/social.ts's socialTextsSchema), kept as written. */
export async function saveSocialTexts(
  ctx: SocialScope,
  newsletterId: string,
  texts: SocialTexts,
): Promise<void> {
  await newsletterOf(ctx, newsletterId);
  await keep(ctx, newsletterId, texts, true);
}

/** Back to the texts made from the newsletter; they follow it again. */
export async function resetSocialTexts(
  ctx: SocialScope,
  newsletterId: string,
): Promise<SocialTexts> {
  const newsletter = await newsletterOf(ctx, newsletterId);
  const made = await generatedTexts(ctx, newsletter);
  await keep(ctx, newsletterId, made, false);
  return made;
}
