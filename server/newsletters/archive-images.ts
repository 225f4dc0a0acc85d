import { FetchRefused, fetchOutside } from "../http/safe-fetch";

/*
 * Images of imported posts are fetched from where the old platform kept them and copied into
 * Herald's store (the upload path: server/files/images.ts), through the safe fetch of outside
 * addresses (server/http/safe-fetch.ts: no private networks, time and size limits).
 */

export { isPrivateAddress } from "../http/safe-fetch";

/** The same limit as an upload (server/files/images.ts, MAX_IMAGE_BYTES). */
export const MAX_FETCHED_IMAGE_BYTES = 5 * 1024 * 1024;

/** An image that could not be copied: the import goes on, and the report says why. */
export const ImageFetchError = FetchRefused;

/** The bytes of an image on the web, within the limits; ImageFetchError when refused or failed. */
export async function fetchImage(
  address: string,
  options: { allowPrivate: boolean },
): Promise<Uint8Array> {
  const fetched = await fetchOutside(address, {
    allowPrivate: options.allowPrivate,
    userAgent: "Herald archive import",
    accept: "image/*",
    type: /^image\/(png|jpe?g|gif|webp)\b/i,
    typeProblem: "it is not a PNG, JPEG, GIF or WebP image",
    maxBytes: MAX_FETCHED_IMAGE_BYTES,
    maxSize: "5 MB",
  });
  return fetched.bytes;
}
