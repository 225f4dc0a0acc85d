import { type StoredExtension, saveFile } from "./store";

/** Newsletter images: at most 5 MB, and only formats a browser shows without running anything. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

export const IMAGE_TOO_LARGE = "Images must be 5 MB or smaller.";
export const IMAGE_NOT_ALLOWED = "Only PNG, JPEG, GIF and WebP images can be uploaded.";
export const IMAGE_MISSING = "Choose an image file to upload.";

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

/** Checks an uploaded image and stores it for the tenant; throws ImageUploadError when refused. */
export async function saveImageUpload(
  ctx: { tenantId: string },
  bytes: Uint8Array,
): Promise<{ key: string; url: string }> {
  if (bytes.length > MAX_IMAGE_BYTES) throw new ImageUploadError(IMAGE_TOO_LARGE, 413);
  const type = bytes.length > 0 ? detectImageType(bytes) : null;
  if (!type) throw new ImageUploadError(IMAGE_NOT_ALLOWED, 400);
  return saveFile({ tenantId: ctx.tenantId, bytes, ...type });
}
