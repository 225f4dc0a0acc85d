import type { Metadata, OutputInfo } from "sharp";
import type { Db } from "../db";
import { lazy } from "../lazy";
import { limitRefusal } from "../tenants/usage";
import { fileStoreFor, type StoredExtension, saveFile, saveVariant } from "./store";
import type { ImageVariant, StoredImage } from "./stored-images";

/**
 * sharp (with its native libvips), loaded by the first upload or share card: most requests never
 * touch an image.
 */
export const loadSharp = lazy(() => import("sharp").then((module) => module.default));

/** Newsletter images: at most 5 MB, and only formats a browser shows without running anything. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

export const IMAGE_TOO_LARGE = "Images must be 5 MB or smaller.";
export const IMAGE_NOT_ALLOWED = "Only PNG, JPEG, GIF and WebP images can be uploaded.";
export const IMAGE_MISSING = "Choose an image file to upload.";
export const IMAGE_UNREADABLE =
  "That image could not be read. Save it again as PNG or JPEG and retry.";

export class ImageUploadError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 413,
  ) {
    super(message);
  }
}

interface ImageType {
  contentType: string;
  extension: StoredExtension;
}

const startsWith = (bytes: Uint8Array, signature: readonly number[], offset = 0) =>
  bytes.length >= offset + signature.length &&
  signature.every((byte, index) => bytes[offset + index] === byte);

const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0));

/**
 * The image type the bytes themselves declare (their magic numbers), or null. The browser's
 * declared type and the file name are not trusted: SVG, HTML or a renamed text file is refused.
 */
export function detectImageType(bytes: Uint8Array): ImageType | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) {
    return { contentType: "image/png", extension: "png" };
  }
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return { contentType: "image/jpeg", extension: "jpg" };
  if (startsWith(bytes, ascii("GIF87a")) || startsWith(bytes, ascii("GIF89a"))) {
    return { contentType: "image/gif", extension: "gif" };
  }
  if (startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WEBP"), 8)) {
    return { contentType: "image/webp", extension: "webp" };
  }
  return null;
}

/** What sharp's metadata calls each stored type (AVIF is HEIF with AV1 inside). */
const SHARP_FORMATS: Record<StoredExtension, string> = {
  png: "png",
  jpg: "jpeg",
  jpeg: "jpeg",
  gif: "gif",
  webp: "webp",
  avif: "heif",
};

/**
 * Whether the bytes decode, with sharp, as the image type `extension` names: files that come
 * from elsewhere than an upload (a tenant archive: issue 44, finding 6) are stored only so.
 */
export async function decodesAs(bytes: Uint8Array, extension: StoredExtension): Promise<boolean> {
  const sharp = await loadSharp();
  try {
    const image = sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn: "error" });
    if ((await image.metadata()).format !== SHARP_FORMATS[extension]) return false;
    await image.raw().toBuffer(); // every pixel decoded, as an upload's are
    return true;
  } catch {
    return false;
  }
}

/** 2× a 600 px mail column; wider images are scaled down, smaller ones never enlarged. */
export const MAX_IMAGE_WIDTH = 1200;
/** Widths of the newsletter page's srcset (its column is 48rem, 768 px, wide). */
const WEB_WIDTHS = [480, 800, 1200];
/** A decompression bomb stops here: about 40 megapixels. */
const MAX_INPUT_PIXELS = 40_000_000;

/**
 * Checks an uploaded image and stores it for the tenant (issue 12): decoded and re-encoded with
 * sharp (rotated upright, metadata such as GPS position dropped), at most 1,200 px wide, as an
 * email-safe JPEG, or PNG where it has transparency (GIF where it moves); then WebP and AVIF
 * variants for the web page. Throws ImageUploadError when refused.
 */
export async function saveImageUpload(
  ctx: { db: Db; tenantId: string },
  bytes: Uint8Array,
): Promise<StoredImage> {
  if (bytes.length > MAX_IMAGE_BYTES) throw new ImageUploadError(IMAGE_TOO_LARGE, 413);
  const type = bytes.length > 0 ? detectImageType(bytes) : null;
  if (!type) throw new ImageUploadError(IMAGE_NOT_ALLOWED, 400);
  const sharp = await loadSharp();
  const decode = (animated: boolean) =>
    sharp(bytes, { animated, limitInputPixels: MAX_INPUT_PIXELS, failOn: "error" })
      .rotate()
      .resize({ width: MAX_IMAGE_WIDTH, withoutEnlargement: true });
  let metadata: Metadata;
  try {
    metadata = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
  } catch {
    throw new ImageUploadError(IMAGE_UNREADABLE, 400);
  }
  const animated = (metadata.pages ?? 1) > 1 && type.extension === "gif";
  const output: { extension: StoredExtension; contentType: string } = animated
    ? { extension: "gif", contentType: "image/gif" }
    : metadata.hasAlpha
      ? { extension: "png", contentType: "image/png" }
      : { extension: "jpg", contentType: "image/jpeg" };
  let encoded: { data: Buffer; info: OutputInfo };
  try {
    const pipeline = decode(animated);
    encoded = await (output.extension === "gif"
      ? pipeline.gif()
      : output.extension === "png"
        ? pipeline.png({ compressionLevel: 9, palette: true, quality: 90 })
        : pipeline.flatten({ background: "#ffffff" }).jpeg({ quality: 82, mozjpeg: true })
    ).toBuffer({ resolveWithObject: true });
  } catch {
    throw new ImageUploadError(IMAGE_UNREADABLE, 400);
  }
  const width = encoded.info.width;
  const height = encoded.info.pageHeight ?? encoded.info.height;
  // The tenant's storage (decision 057): the image as stored, refused before anything is written.
  const refusal = await limitRefusal(ctx.db, ctx.tenantId, "storageBytes", encoded.data.length);
  if (refusal) throw new ImageUploadError(refusal, 413);
  const store = fileStoreFor(ctx.db);
  const saved = await saveFile(store, { tenantId: ctx.tenantId, bytes: encoded.data, ...output });

  const variants: ImageVariant[] = [];
  if (!animated) {
    const widths = [...new Set([...WEB_WIDTHS.filter((each) => each < width), width])];
    for (const variantWidth of widths) {
      for (const format of ["avif", "webp"] as const) {
        const resized = sharp(encoded.data).resize({ width: variantWidth });
        const data = await (format === "avif"
          ? resized.avif({ quality: 55, effort: 2 })
          : resized.webp({ quality: 80 })
        ).toBuffer();
        const variant = await saveVariant(store, saved.key, {
          bytes: data,
          extension: format,
          contentType: `image/${format}`,
          width: variantWidth,
        });
        variants.push({ key: variant.key, format, width: variantWidth });
      }
    }
  }
  await ctx.db
    .insertInto("images")
    .values({
      key: saved.key,
      tenant_id: ctx.tenantId,
      content_type: output.contentType,
      width,
      height,
      bytes: encoded.data.length,
      variants: JSON.stringify(variants),
      created_at: new Date().toISOString(),
    })
    .execute();
  return {
    key: saved.key,
    url: saved.url,
    contentType: output.contentType,
    width,
    height,
    variants,
  };
}
