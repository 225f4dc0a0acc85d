import { loadSharp } from "../files/images";
import { getNewsletter } from "../newsletters/listing";
import { newsletterShareCard } from "../newsletters/share-card";
import type { Scope } from "../scope";
import { drawPackImage, packImages } from "../social/bundle";
import { socialPackOf } from "../social/pack";

/*
 * What a newsletter's LinkedIn post says and shows: the social pack's LinkedIn text (as staff last
 * saved it, or as made from the newsletter) and its 1200×627 link image. A title too long to set
 * on that image falls back to the newsletter's share card (server/newsletters/share-card.ts).
 */

export interface LinkedInPostContent {
  commentary: string;
  image: { png: Buffer; altText: string };
}

export async function linkedInPostContent(
  ctx: Pick<Scope, "db" | "tenantId" | "tenant" | "origin">,
  newsletterId: string,
): Promise<LinkedInPostContent | null> {
  const newsletter = await getNewsletter(ctx, newsletterId);
  if (newsletter?.status !== "published") return null;
  const { linkedIn } = await socialPackOf(ctx, newsletter);
  const linkImage = packImages(ctx, newsletter).find((image) => image.kind === "link");
  const drawn = linkImage ? await drawPackImage(ctx, newsletter, linkImage) : null;
  return {
    commentary: linkedIn,
    image: {
      png: drawn ?? (await shareCardPng(ctx, newsletter)),
      altText: newsletter.coverAlt || newsletter.title,
    },
  };
}

async function shareCardPng(
  ctx: Pick<Scope, "db" | "tenantId" | "tenant" | "origin">,
  newsletter: NonNullable<Awaited<ReturnType<typeof getNewsletter>>>,
): Promise<Buffer> {
  const card = await newsletterShareCard(ctx, newsletter, ctx.tenant.branding);
  return card.contentType === "image/png"
    ? card.bytes
    : (await loadSharp())(card.bytes).png().toBuffer();
}
