import { Inflate } from "fflate";

/*
 * Zip files someone uploaded, unpacked within limits (issue 44, finding 1). The central directory
 * is read first: the number of entries and the sizes they declare are checked before a byte is
 * inflated. Each wanted entry is then inflated a few kilobytes of input at a time, its output
 * counted as it comes: more than it declared, or than the limits, stops it there. So a zip of
 * 1 MB that unpacks to 1 GB is refused at once (declared) or after its first megabytes (lying),
 * and never holds more than the limits in memory.
 */

export interface UnzipLimits {
  /** entries in the zip, wanted or not */
  maxEntries: number;
  /** one wanted entry, unpacked */
  maxEntryBytes: number;
  /** all wanted entries together, unpacked */
  maxTotalBytes: number;
}

/** A zip refused: the message says why, for the person who uploaded it. */
export class UnzipError extends Error {
  constructor(
    message: string,
    /** "format": not a zip this reads; "limit": over a limit */
    readonly kind: "format" | "limit",
  ) {
    super(message);
  }
}

/** Compressed bytes handed to the inflater at once: at most ~1,032× that comes out of one push. */
const INPUT_SLICE = 4096;

const MB = 1_000_000;

/** "200 MB", "1.5 MB", "900 bytes" */
export function sizeLabel(bytes: number): string {
  if (bytes < 1000) return `${bytes} bytes`;
  if (bytes < MB) return `${Math.round(bytes / 1000)} KB`;
  return `${Math.round((bytes / MB) * 10) / 10} MB`;
}

interface Entry {
  name: string;
  method: number;
  flags: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

function notAZip(why: string): UnzipError {
  return new UnzipError(`The file is not a zip file this can read (${why}).`, "format");
}

/** The central directory's entries, checked against the count limit before they are listed. */
function centralDirectory(zip: Uint8Array, limits: UnzipLimits): Entry[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  // The end record is in the last 22 + 65,535 bytes (its comment is at most 64 KB).
  let end = -1;
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 0xffff); at--) {
    if (view.getUint32(at, true) === 0x06054b50) {
      end = at;
      break;
    }
  }
  if (end < 0) throw notAZip("no end of central directory");
  const count = view.getUint16(end + 10, true);
  const directorySize = view.getUint32(end + 12, true);
  const directoryOffset = view.getUint32(end + 16, true);
  if (count === 0xffff || directoryOffset === 0xffffffff) {
    throw notAZip("zip64 archives are not read");
  }
  if (count > limits.maxEntries) {
    throw new UnzipError(
      `The zip file has ${count.toLocaleString("en")} entries; at most ${limits.maxEntries.toLocaleString("en")} are read.`,
      "limit",
    );
  }
  if (directoryOffset + directorySize > end) throw notAZip("its directory is out of bounds");
  const entries: Entry[] = [];
  const decoder = new TextDecoder("utf-8");
  let at = directoryOffset;
  for (let index = 0; index < count; index++) {
    if (at + 46 > end || view.getUint32(at, true) !== 0x02014b50) {
      throw notAZip("its directory is damaged");
    }
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    if (at + 46 + nameLength > end) throw notAZip("its directory is damaged");
    entries.push({
      flags: view.getUint16(at + 8, true),
      method: view.getUint16(at + 10, true),
      compressedSize: view.getUint32(at + 20, true),
      size: view.getUint32(at + 24, true),
      localOffset: view.getUint32(at + 42, true),
      name: decoder.decode(zip.subarray(at + 46, at + 46 + nameLength)),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** An entry's bytes, inflated in slices, stopped once it passes `cap`. */
function inflateEntry(zip: Uint8Array, entry: Entry, cap: number, tooLarge: () => Error) {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const local = entry.localOffset;
  if (local + 30 > zip.length || view.getUint32(local, true) !== 0x04034b50) {
    throw notAZip(`the entry ${entry.name} is damaged`);
  }
  const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
  const data = zip.subarray(start, start + entry.compressedSize);
  if (data.length !== entry.compressedSize) throw notAZip(`the entry ${entry.name} is cut short`);
  if (entry.flags & 1) throw notAZip(`the entry ${entry.name} is encrypted`);
  if (entry.method === 0) {
    if (data.length > cap) throw tooLarge();
    return data.slice();
  }
  if (entry.method !== 8) throw notAZip(`the entry ${entry.name} uses compression ${entry.method}`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  let done = false;
  const inflater = new Inflate((chunk, final) => {
    size += chunk.length;
    if (size > cap) throw tooLarge();
    chunks.push(chunk);
    if (final) done = true;
  });
  try {
    for (let offset = 0; offset < data.length; offset += INPUT_SLICE) {
      const end = Math.min(offset + INPUT_SLICE, data.length);
      inflater.push(data.subarray(offset, end), end === data.length);
    }
    if (data.length === 0) inflater.push(new Uint8Array(0), true);
  } catch (error) {
    if (error instanceof UnzipError) throw error;
    throw notAZip(`the entry ${entry.name} could not be inflated`);
  }
  if (!done) throw notAZip(`the entry ${entry.name} is cut short`);
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/**
 * The wanted entries of a zip (all files when no `want`), by name, within `limits`; UnzipError
 * when it is not a zip this reads or passes a limit (declared or actual), naming the entry.
 */
export function unzipBounded(
  zip: Uint8Array,
  limits: UnzipLimits,
  want: (name: string) => boolean = () => true,
): Record<string, Uint8Array> {
  const entries = centralDirectory(zip, limits).filter(
    (entry) => !entry.name.endsWith("/") && want(entry.name),
  );
  const entryLimit = sizeLabel(limits.maxEntryBytes);
  const totalLimit = sizeLabel(limits.maxTotalBytes);
  let declared = 0;
  for (const entry of entries) {
    if (entry.size > limits.maxEntryBytes) {
      throw new UnzipError(
        `${entry.name} in the zip file unpacks to ${sizeLabel(entry.size)}; at most ${entryLimit} is read per file.`,
        "limit",
      );
    }
    declared += entry.size;
    if (declared > limits.maxTotalBytes) {
      throw new UnzipError(`The zip file unpacks to more than ${totalLimit}.`, "limit");
    }
  }
  const files: Record<string, Uint8Array> = {};
  let total = 0;
  for (const entry of entries) {
    // Its declared size bounds it: a zip whose entry inflates to more is lying about it.
    const bytes = inflateEntry(
      zip,
      entry,
      entry.size,
      () =>
        new UnzipError(
          `${entry.name} in the zip file unpacks to more than the ${sizeLabel(entry.size)} it declares.`,
          "limit",
        ),
    );
    total += bytes.length;
    if (total > limits.maxTotalBytes) {
      throw new UnzipError(`The zip file unpacks to more than ${totalLimit}.`, "limit");
    }
    files[entry.name] = bytes;
  }
  return files;
}
