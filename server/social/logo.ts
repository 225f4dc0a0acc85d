import { createHash } from "node:crypto";
import { getEnv } from "../env";
import { loadSharp } from "../files/images";
import { fileStoreFor, readFile } from "../files/store";
import { FetchRefused, fetchOutside } from "../http/safe-fetch";
import { getLogger } from "../logger";
import { MiB, memoryCache, stringBytes } from "../memory-cache";
import { LOGO_BOX, type SocialLogo } from "./images";
import type { SocialScope } from "./pack";

/*
 * The tenant's logo for the social pack's images (issue 36): its Logo URL is an upload
 * (/uploads/{tenant}/{hex}.png, read from the file store), or an address on the web or a path on
 * the tenant's site (fetched through the safe fetch: no private networks, time and size limits).
 * It is decoded and scaled with sharp to fit the images' header row, its aspect ratio kept. A logo
 * that cannot be had or decoded is logged as a warning and the images carry the initial instead:
 * a broken logo never costs staff the pack.
 */

const MAX_LOGO_BYTES = 5 * 1024 * 1024;
/** Decoding a logo must not take the server's memory: 40 megapixels is any real logo. */
const MAX_LOGO_PIXELS = 40_000_000;
/** A logo elsewhere may change at the same address; an upload's never does (a new key each). */
const FETCHED_LOGO_TTL_MS = 10 * 60 * 1000;
const FETCH_TIMEOUT_MS = 5_000;

const UPLOAD = /^\/uploads\/([a-z0-9-]+\/[a-f0-9]{32}\.(?:png|jpe?g|gif|webp))$/;

/** The logo's bytes, or a sentence saying why there are none ("its server answered 404"). */
async function logoBytes(ctx: SocialScope, logoUrl: string): Promise<Buffer | string> {
  const key = UPLOAD.exec(logoUrl)?.[1];
  if (key) {
    const stored = await readFile(fileStoreFor(ctx.db), key);
    return stored?.bytes ?? "the uploaded file is not in the store";
  }
  try {
    const fetched = await fetchOutside(new URL(logoUrl, ctx.origin).href, {
      allowPrivate: getEnv().IMPORT_ALLOW_PRIVATE_HOSTS === "true",
      userAgent: "Herald social pack",
      accept: "image/*",
      type: /^image\/(png|jpe?g|gif|webp|avif|svg\+xml)\b/i,
      typeProblem: "it is not a PNG, JPEG, GIF, WebP, AVIF or SVG image",
      maxBytes: MAX_LOGO_BYTES,
      maxSize: "5 MB",
      timeoutMs: FETCH_TIMEOUT_MS,
    });
    return Buffer.from(fetched.bytes);
  } catch (error) {
    if (error instanceof FetchRefused || error instanceof TypeError) return error.message;
    throw error;
  }
}

/**
 * Any image sharp reads (PNG, JPEG, GIF, WebP, AVIF, SVG) as a PNG that fits LOGO_BOX, its aspect
 * ratio kept. Throws when the bytes are not an image.
 */
export async function decodeLogo(bytes: Uint8Array): Promise<SocialLogo> {
  const sharp = await loadSharp();
  const options = { limitInputPixels: MAX_LOGO_PIXELS, failOn: "error" as const };
  const metadata = await sharp(bytes, options).metadata();
  let density: number | undefined;
  if (metadata.format === "svg" && metadata.width && metadata.height) {
    // An SVG is drawn at 72 dpi unless told: draw it at twice the size it is shown, so a small
    // viewBox is not blown up blurred.
    const scale = Math.min(LOGO_BOX.width / metadata.width, LOGO_BOX.height / metadata.height);
    density = Math.min(2400, Math.max(1, Math.ceil(72 * scale * 2)));
  }
  const { data, info } = await sharp(bytes, { ...options, density })
    .rotate()
    .resize({ width: LOGO_BOX.width, height: LOGO_BOX.height, fit: "inside" })
    .png()
    .toBuffer({ resolveWithObject: true });
  const hash = createHash("sha256").update(data).digest("base64url").slice(0, 16);
  return { png: data, width: info.width, height: info.height, hash };
}

const kept = memoryCache<string, { logo: SocialLogo | null }>({
  maxBytes: 4 * MiB,
  bytesOf: (entry, key) => (entry.logo?.png.length ?? 0) + stringBytes(key),
  ttlMs: FETCHED_LOGO_TTL_MS,
});

/** The tenant's logo scaled for the header row, or null: none set, or it could not be had. */
export async function tenantLogo(ctx: SocialScope): Promise<SocialLogo | null> {
  const logoUrl = ctx.tenant.branding.logoUrl.trim();
  if (!logoUrl) return null;
  const key = `${ctx.tenantId}|${logoUrl}`;
  const hit = kept.get(key);
  if (hit) return hit.logo;
  const bytes = await logoBytes(ctx, logoUrl);
  let logo: SocialLogo | null = null;
  let problem = typeof bytes === "string" ? bytes : "";
  if (typeof bytes !== "string") {
    try {
      logo = await decodeLogo(bytes);
    } catch (error) {
      problem = `it could not be decoded (${(error as Error).message})`;
    }
  }
  if (!logo) {
    getLogger().warn(
      { code: "social/logo-unusable", tenantId: ctx.tenantId, logoUrl, problem },
      "the tenant's logo is left out of the social images: they carry its initial",
    );
  }
  // A failure is kept too (for the TTL): each image of a page would otherwise ask again.
  kept.set(key, { logo });
  return logo;
}
