import { decodesAs } from "../../files/images";
import {
  CONTENT_TYPES,
  type FileBackend,
  isValidFileKey,
  type StoredExtension,
} from "../../files/store";
import type { Row } from "./archive";

/*
 * A tenant archive's files, as the importing tenant's only (issue 44, finding 6): a crafted
 * archive wrote files under another tenant's prefix (disk and stored_files) with any content
 * type. Every key must be the archive's tenant's, is renamed to the importing tenant's, and every
 * file must decode as the image its name says; all are checked before anything is written.
 */

/** A file ready to store: its key at the destination, its bytes, its type by its extension. */
export interface ImportedFile {
  key: string;
  bytes: Uint8Array;
  contentType: string;
}

const TYPE_NAMES: Record<StoredExtension, string> = {
  png: "PNG",
  jpg: "JPEG",
  jpeg: "JPEG",
  gif: "GIF",
  webp: "WebP",
  avif: "AVIF",
};

/** Why `key` may not be stored for the archive's tenant `fromId`, or null. */
function keyProblem(what: "file" | "image", key: string, fromId: string): string | null {
  if (!isValidFileKey(key)) return `The archive holds a ${what} with a malformed key: ${key}.`;
  if (!key.startsWith(`${fromId}/`)) {
    return `The archive's ${what} ${key} is not under the archive's tenant ${fromId}.`;
  }
  return null;
}

/** Why the archive's `images` rows (and their variants) cannot be imported, or null. */
export function imageRowsProblem(rows: readonly Row[], fromId: string): string | null {
  for (const row of rows) {
    let variants: unknown;
    try {
      variants = JSON.parse(String(row.variants ?? "[]"));
    } catch {
      return `The archive's image ${String(row.key)} has unreadable variants.`;
    }
    const keys = [row.key, ...(Array.isArray(variants) ? variants : []).map((each) => each?.key)];
    for (const key of keys) {
      const problem = keyProblem("image", String(key), fromId);
      if (problem) return problem;
    }
  }
  return null;
}

/**
 * The archive's files renamed by `rename` (the archive's tenant's prefix to the importing
 * tenant's), each checked to be under the archive's tenant and to decode as its type. Throws
 * `refuse(message)` at the first that is not.
 */
export async function checkedFiles(
  files: ReadonlyMap<string, Uint8Array>,
  fromId: string,
  rename: (key: string) => string,
  refuse: (message: string) => Error,
): Promise<ImportedFile[]> {
  const checked: ImportedFile[] = [];
  for (const [key, bytes] of files) {
    const problem = keyProblem("file", key, fromId);
    if (problem) throw refuse(problem);
    const extension = key.slice(key.lastIndexOf(".") + 1) as StoredExtension;
    if (!(await decodesAs(bytes, extension))) {
      throw refuse(`The archive's file ${key} is not a ${TYPE_NAMES[extension]} image.`);
    }
    const target = rename(key);
    if (!isValidFileKey(target)) throw refuse(`The archive's file ${key} cannot be renamed.`);
    checked.push({ key: target, bytes, contentType: CONTENT_TYPES[extension] });
  }
  return checked;
}

/**
 * Stores the checked files. A file already there with the same bytes (written by an earlier
 * attempt that failed after it: disk, S3) is kept; a different one refuses.
 */
export async function storeFiles(
  store: FileBackend,
  files: readonly ImportedFile[],
  refuse: (message: string) => Error,
): Promise<void> {
  for (const file of files) {
    const there = await store.read(file.key);
    if (there) {
      if (Buffer.compare(there, Buffer.from(file.bytes)) === 0) continue;
      throw refuse(`The ${store.kind} store already holds a different file under ${file.key}.`);
    }
    await store.write(file.key, file.bytes, file.contentType);
  }
}
