import { constants, deflateRawSync } from "node:zlib";

/*
 * Zip bombs made in the test (issue 44, finding 1), never committed: one entry of `megabytes` MB
 * of zeros in about a kilobyte per megabyte. Each megabyte is deflated once and its bytes
 * repeated (a flushed deflate block ends on a byte and does not end the stream), then one empty
 * final block. The entry declares `declaredBytes` (its true size unless a lie is wanted).
 */

export interface BombEntry {
  name: string;
  /** raw deflate data, or stored bytes when `stored` */
  data: Uint8Array;
  size: number;
  stored?: boolean;
}

/** A zip of the entries (no CRC: the readers under test do not check it before the limits). */
export function zipOf(entries: BombEntry[]): Uint8Array {
  const locals: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, "utf-8");
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(entry.stored ? 0 : 8, 8);
    local.writeUInt32LE(entry.data.length, 18);
    local.writeUInt32LE(entry.size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(entry.stored ? 0 : 8, 10);
    central.writeUInt32LE(entry.data.length, 20);
    central.writeUInt32LE(entry.size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, Buffer.from(entry.data));
    directory.push(central, name);
    offset += 30 + name.length + entry.data.length;
  }
  const directoryBytes = Buffer.concat(directory);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directoryBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, directoryBytes, end]));
}

/** `megabytes` MB of zeros as raw deflate data of about `megabytes` KB. */
export function zerosDeflated(megabytes: number): Uint8Array {
  const block = deflateRawSync(Buffer.alloc(1_000_000), {
    level: 9,
    finishFlush: constants.Z_SYNC_FLUSH,
  });
  const last = deflateRawSync(Buffer.alloc(0));
  const parts: Buffer[] = [];
  for (let index = 0; index < megabytes; index++) parts.push(block);
  parts.push(last);
  return new Uint8Array(Buffer.concat(parts));
}

/** A zip whose one entry `name` unpacks to `megabytes` MB, declaring `declaredBytes`. */
export function zipBomb(name: string, megabytes: number, declaredBytes = megabytes * 1_000_000) {
  return zipOf([{ name, data: zerosDeflated(megabytes), size: declaredBytes }]);
}
