import { loadSharp } from "../files/images";
import { getNewsletter } from "../newsletters/listing";
import { newsletterShareCard } from "../newsletters/share-card";
import type { Scope } from "../scope";

/*
 * What a newsletter's LinkedIn post says and shows: its title, excerpt and link, and its share
 * card (server/newsletters/share-card.ts) as a PNG. One small file on purpose: the social pack
 * (editable LinkedIn text, a 1200×627 image) takes its place after merge.
 */

export interface LinkedInPostContent {
  commentary: string;
  articleUrl: string;
  image: { png: Buffer; altText: string };
}

export async function linkedInPostContent(
  ctx: Pick<Scope, "db" | "tenantId" | "tenant" | "origin">,
  newsletterId: string,
): Promise<LinkedInPostContent | null> {
  const newsletter = await getNewsletter(ctx, newsletterId);
  if (newsletter?.status !== "published") return null;
  const articleUrl = `${ctx.origin}/newsletter/${encodeURIComponent(newsletter.slug)}`;
  const card = await newsletterShareCard(ctx, newsletter, ctx.tenant.branding);
  const png =
    card.contentType === "image/png"
      ? card.bytes
      : await (await loadSharp())(card.bytes).png().toBuffer();
  const commentary = [newsletter.title, newsletter.excerpt.trim(), articleUrl]
    .filter(Boolean)
    .join("\n\n")
    .slice(0, 3000);
  return {
    commentary,
    articleUrl,
    image: { png, altText: newsletter.coverAlt || newsletter.title },
  };
}
