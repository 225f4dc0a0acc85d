import { strToU8, zipSync } from "fflate";
import { renderSocialImageOffThread } from "../cpu/tasks";
import { MiB, memoryCache, stringBytes } from "../memory-cache";
import type { Newsletter } from "../newsletters/model";
import { type SocialImageContent, type SocialImageKind, TextTooLongError } from "./images";
import { tenantLogo } from "./logo";
import type { SocialPackTexts, SocialScope } from "./pack";
import { outlineOf } from "./texts";

/*
 * The social pack's images as files (issue 36): the link share, the feed square and a quote card
 * per pull quote (at most MAX_QUOTE_CARDS; a quote too long to set legibly gets none), and the
 * whole pack as one zip.
 */

export const MAX_QUOTE_CARDS = 6;

export interface PackImage {
  /** link.png, square.png, quote-1.png … */
  name: string;
  kind: SocialImageKind;
  width: number;
  height: number;
  alt: string;
  content: SocialImageContent;
}

/** Where the newsletter is read, for the images' small print: "keydiscovery.com/newsletter". */
const siteOf = (origin: string) => `${new URL(origin).host}/newsletter`;

/** The pack's images of a newsletter (not drawn yet). */
export function packImages(ctx: SocialScope, newsletter: Newsletter): PackImage[] {
  const site = siteOf(ctx.origin);
  const base = { title: newsletter.title, excerpt: newsletter.excerpt, site };
  const images: PackImage[] = [
    {
      name: "link.png",
      kind: "link",
      width: 1200,
      height: 627,
      alt: `Link share image: ${newsletter.title}`,
      content: base,
    },
    {
      name: "square.png",
      kind: "square",
      width: 1080,
      height: 1080,
      alt: `Feed image: ${newsletter.title}`,
      content: base,
    },
  ];
  outlineOf(newsletter.content)
    .quotes.slice(0, MAX_QUOTE_CARDS)
    .forEach((quote, index) => {
      images.push({
        name: `quote-${index + 1}.png`,
        kind: "quote",
        width: 1080,
        height: 1080,
        alt: `Quote card: “${quote}”`,
        content: { ...base, quote },
      });
    });
  return images;
}

// Drawing an image takes a few hundred milliseconds; the page and the zip ask for the same ones.
const kept = memoryCache<string, { png: Buffer | null }>({
  maxBytes: 32 * MiB,
  bytesOf: (drawn, key) => (drawn.png?.length ?? 0) + stringBytes(key),
});

/** The image's PNG bytes, or null when its text cannot be set legibly (an overlong quote). */
export async function drawPackImage(
  ctx: SocialScope,
  newsletter: Newsletter,
  image: PackImage,
): Promise<Buffer | null> {
  const { primaryColor, secondaryColor, backgroundColor, companyName } = ctx.tenant.branding;
  const logo = await tenantLogo(ctx);
  const key = JSON.stringify([
    ctx.tenantId,
    newsletter.id,
    newsletter.updatedAt,
    image.name,
    image.content,
    primaryColor,
    secondaryColor,
    backgroundColor,
    companyName,
    logo?.hash ?? null,
  ]);
  const hit = kept.get(key);
  if (hit) return hit.png;
  let png: Buffer | null;
  try {
    // Drawn in a worker thread (server/cpu/pool.ts): seconds of a large pack off the request's.
    png = await renderSocialImageOffThread(image.kind, image.content, {
      primaryColor,
      secondaryColor,
      backgroundColor,
      companyName,
      logo,
    });
  } catch (error) {
    if (!(error instanceof TextTooLongError)) throw error;
    png = null;
  }
  kept.set(key, { png });
  return png;
}

/** The pack as a zip: linkedin.txt, short.txt and the images, in a folder named after the slug. */
export async function packZip(
  ctx: SocialScope,
  newsletter: Newsletter,
  texts: SocialPackTexts,
): Promise<Uint8Array> {
  const folder = `${newsletter.slug}-social`;
  const files: Record<string, Uint8Array | [Uint8Array, { level: 0 }]> = {
    [`${folder}/linkedin.txt`]: strToU8(`${texts.linkedIn}\n`),
    [`${folder}/short.txt`]: strToU8(`${texts.short}\n`),
  };
  for (const image of packImages(ctx, newsletter)) {
    const png = await drawPackImage(ctx, newsletter, image);
    // PNG is compressed already: stored as it is.
    if (png) files[`${folder}/${image.name}`] = [new Uint8Array(png), { level: 0 }];
  }
  return zipSync(files, { mtime: new Date(newsletter.updatedAt) });
}

export interface PackImageView {
  name: string;
  width: number;
  height: number;
  alt: string;
  /** the image's address on the staff page; null when its text is too long to set */
  url: string | null;
}

/** The pack's images for the staff page: each drawn (kept for the image route and the zip). */
export async function packImageViews(
  ctx: SocialScope,
  newsletter: Newsletter,
): Promise<PackImageView[]> {
  const version = encodeURIComponent(newsletter.updatedAt);
  const views: PackImageView[] = [];
  for (const image of packImages(ctx, newsletter)) {
    const png = await drawPackImage(ctx, newsletter, image);
    views.push({
      name: image.name,
      width: image.width,
      height: image.height,
      alt: image.alt,
      url: png ? `/admin/newsletter/social/${newsletter.id}/${image.name}?v=${version}` : null,
    });
  }
  return views;
}
