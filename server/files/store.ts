import { randomBytes } from "node:crypto";
import { mkdir, readFile as readFromDisk, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { getEnv } from "../env";

/**
 * The file store (DESIGN.md §5): logos, favicons and newsletter images on local disk, under
 * UPLOADS_DIR (default ./data/uploads) as {tenantId}/{32 hex}.{ext}. S3-compatible storage
 * (S3_URL) is not built yet; this module is the one place that would learn it.
 */
export const CONTENT_TYPES = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
} as const;

export type StoredExtension = keyof typeof CONTENT_TYPES;

/**
 * The only keys the store reads or writes: no dots, slashes or anything else a path could abuse.
 * `-{width}` names a variant of the same image (issue 12: WebP and AVIF for the web page).
 */
const KEY_PATTERN = /^[a-z0-9-]+\/[a-f0-9]{32}(?:-[1-9][0-9]{1,3})?\.(png|jpe?g|gif|webp|avif)$/;
const TENANT_PATTERN = /^[a-z0-9-]+$/;

export function isValidFileKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export function fileUrl(key: string): string {
  return `/uploads/${key}`;
}

export function defaultUploadsRoot(): string {
  return resolve(getEnv().UPLOADS_DIR);
}

export interface SaveFileInput {
  tenantId: string;
  bytes: Uint8Array;
  contentType: string;
  extension: StoredExtension;
}

export async function saveFile(
  input: SaveFileInput,
  root: string = defaultUploadsRoot(),
): Promise<{ key: string; url: string }> {
  if (!TENANT_PATTERN.test(input.tenantId)) throw new Error("Invalid tenant id for a stored file");
  return writeKey(`${input.tenantId}/${randomBytes(16).toString("hex")}`, input, root);
}

/** Stores a variant of the file under `key` (another size or format): `{name}-{width}.{ext}`. */
export async function saveVariant(
  key: string,
  input: Omit<SaveFileInput, "tenantId"> & { width: number },
  root: string = defaultUploadsRoot(),
): Promise<{ key: string; url: string }> {
  if (!isValidFileKey(key)) throw new Error(`Invalid file key ${key}`);
  return writeKey(`${key.slice(0, key.lastIndexOf("."))}-${input.width}`, input, root);
}

async function writeKey(
  name: string,
  input: Omit<SaveFileInput, "tenantId">,
  root: string,
): Promise<{ key: string; url: string }> {
  if (CONTENT_TYPES[input.extension] !== input.contentType) {
    throw new Error(`Content type ${input.contentType} does not match .${input.extension}`);
  }
  const key = `${name}.${input.extension}`;
  if (!isValidFileKey(key)) throw new Error(`Invalid file key ${key}`);
  const path = join(root, key);
  await mkdir(dirname(path), { recursive: true });
  // "wx": never overwrite; a clash of 128 random bits would be a bug worth an error.
  await writeFile(path, input.bytes, { flag: "wx" });
  return { key, url: fileUrl(key) };
}

export interface StoredFile {
  bytes: Buffer;
  contentType: string;
}

/** The file under `key`, or null when the key is malformed or nothing is stored there. */
export async function readFile(
  key: string,
  root: string = defaultUploadsRoot(),
): Promise<StoredFile | null> {
  if (!isValidFileKey(key)) return null;
  const extension = key.slice(key.lastIndexOf(".") + 1) as StoredExtension;
  try {
    const bytes = await readFromDisk(join(root, key));
    return { bytes, contentType: CONTENT_TYPES[extension] };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}
