import { deflateSync } from "node:zlib";

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = (CRC_TABLE[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length);
  const typed = Buffer.concat([Buffer.from(type, "ascii"), body]);
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE(crc32(typed));
  return Buffer.concat([head, typed, tail]);
}

/** A real PNG of `width` × `height` pixels (8-bit RGB, a diagonal colour ramp), made in memory. */
export function testPng(width: number, height: number): Uint8Array {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.alloc(height * (1 + width * 3));
  for (let y = 0; y < height; y++) {
    const row = y * (1 + width * 3);
    for (let x = 0; x < width; x++) {
      const pixel = row + 1 + x * 3;
      rows[pixel] = (x * 255) / Math.max(1, width - 1);
      rows[pixel + 1] = (y * 255) / Math.max(1, height - 1);
      rows[pixel + 2] = 160;
    }
  }
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk("IHDR", header),
      chunk("IDAT", deflateSync(rows)),
      chunk("IEND", Buffer.alloc(0)),
    ]),
  );
}

/** Uploads a test PNG through the admin's upload route as `cookie`'s staff member: its /uploads URL. */
export async function uploadTestPng(
  baseUrl: string,
  cookie: string,
  width: number,
  height: number,
): Promise<string> {
  const form = new FormData();
  form.set("file", new Blob([testPng(width, height).slice()], { type: "image/png" }), "i.png");
  const response = await fetch(`${baseUrl}/admin/uploads`, {
    method: "POST",
    body: form,
    headers: { cookie, origin: baseUrl },
  });
  if (response.status !== 200) throw new Error(`upload answered ${response.status}`);
  return ((await response.json()) as { url: string }).url;
}
