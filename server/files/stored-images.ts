import type { Db } from "../db";
import { tenantDb } from "../db/tenant-guard";
import { fileUrl, isValidFileKey } from "./store";

/*
 * What is known of uploaded images once stored (their size and web variants), for the newsletter
 * page and for mail. Apart from images.ts, so the sender does not load sharp (libvips) to read it.
 */

/** A web variant of an uploaded image: the same picture in another format and width. */
export interface ImageVariant {
  key: string;
  format: "avif" | "webp";
  width: number;
}

export interface StoredImage {
  key: string;
  url: string;
  contentType: string;
  width: number;
  height: number;
  variants: ImageVariant[];
}

/** The stored images among `urls` (/uploads/… paths or absolute URLs), by the URL as given. */
export async function findImagesByUrl(
  root: Db,
  tenantId: string,
  urls: Iterable<string>,
): Promise<Map<string, StoredImage>> {
  const db = tenantDb(root, tenantId);
  const keyOf = new Map<string, string>();
  for (const url of urls) {
    const key = /\/uploads\/([a-z0-9-]+\/[a-f0-9]{32}\.(?:png|jpe?g|gif|webp))$/.exec(url)?.[1];
    if (key && isValidFileKey(key)) keyOf.set(url, key);
  }
  const found = new Map<string, StoredImage>();
  if (keyOf.size === 0) return found;
  const rows = await db
    .selectFrom("images")
    .selectAll()
    .where("key", "in", [...new Set(keyOf.values())])
    .execute();
  const byKey = new Map(rows.map((row) => [row.key, row]));
  for (const [url, key] of keyOf) {
    const row = byKey.get(key);
    if (!row) continue;
    found.set(url, {
      key: row.key,
      url: fileUrl(row.key),
      contentType: row.content_type,
      width: Number(row.width),
      height: Number(row.height),
      variants: JSON.parse(row.variants) as ImageVariant[],
    });
  }
  return found;
}

/** Every img src in some HTML, as written. */
export function imageSources(html: string): string[] {
  return [...html.matchAll(/<img\b[^>]*?\bsrc="([^"]+)"/gi)].map((match) => match[1] ?? "");
}

/** The newsletter column: 48rem. Phones show images at the screen's width. */
const PAGE_IMAGE_SIZES = "(min-width: 48rem) 48rem, 100vw";

/** An uploaded image as a page renders it: the fallback file, its size, and its AVIF/WebP sources. */
export interface Picture {
  src: string;
  width: number;
  height: number;
  sources: { type: string; srcset: string }[];
}

export function pictureOf(image: StoredImage): Picture {
  const sources = (["avif", "webp"] as const).flatMap((format) => {
    const srcset = image.variants
      .filter((variant) => variant.format === format)
      .map((variant) => `${fileUrl(variant.key)} ${variant.width}w`)
      .join(", ");
    return srcset ? [{ type: `image/${format}`, srcset }] : [];
  });
  return { src: image.url, width: image.width, height: image.height, sources };
}

/**
 * Uploaded images on the web page as <picture>: AVIF and WebP variants by width, and the
 * email-safe file as the fallback, with width and height so nothing shifts as they load.
 * `html` is sanitised output (double-quoted attributes); other images are left as they are.
 */
export function withResponsiveImages(html: string, images: Map<string, StoredImage>): string {
  if (images.size === 0) return html;
  return html.replace(/<img\b([^>]*?)\s*\/?>/gi, (whole, attributes: string) => {
    const src = /\bsrc="([^"]+)"/.exec(attributes)?.[1];
    const image = src ? images.get(src) : undefined;
    if (!image) return whole;
    const kept = attributes.replace(/\s(?:width|height|loading|decoding)="[^"]*"/gi, "");
    const img = `<img${kept} width="${image.width}" height="${image.height}" loading="lazy" decoding="async">`;
    const sources = pictureOf(image)
      .sources.map(
        (source) =>
          `<source type="${source.type}" srcset="${source.srcset}" sizes="${PAGE_IMAGE_SIZES}">`,
      )
      .join("");
    return sources ? `<picture>${sources}${img}</picture>` : img;
  });
}
