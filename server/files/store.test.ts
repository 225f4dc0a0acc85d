import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { diskBackend, isValidFileKey, readFile, saveFile } from "./store";

const root = mkdtempSync(join(tmpdir(), "herald-store-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const disk = diskBackend(root);

describe("the file store", () => {
  it("saves under {tenant}/{random}.{ext} and reads the same bytes back", async () => {
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const saved = await saveFile(disk, {
      tenantId: "main",
      bytes,
      contentType: "image/png",
      extension: "png",
    });
    expect(saved.key).toMatch(/^main\/[0-9a-f]{32}\.png$/);
    expect(saved.url).toBe(`/uploads/${saved.key}`);
    expect(readFileSync(join(root, saved.key))).toEqual(Buffer.from(bytes));
    const read = await readFile(disk, saved.key);
    expect(read?.contentType).toBe("image/png");
    expect(new Uint8Array(read?.bytes ?? [])).toEqual(bytes);
  });

  it("writes files only its own user can read (0600), in directories only it can open (0700)", async () => {
    const saved = await saveFile(disk, {
      tenantId: "modes",
      bytes: new Uint8Array([1, 2, 3]),
      contentType: "image/png",
      extension: "png",
    });
    // Subscribers' images and unpublished drafts' pictures: not for the machine's other users.
    expect(statSync(join(root, saved.key)).mode & 0o777).toBe(0o600);
    expect(statSync(join(root, "modes")).mode & 0o777).toBe(0o700);
  });

  it("never reuses a name", async () => {
    const input = {
      tenantId: "keydiscovery",
      bytes: new Uint8Array([1]),
      contentType: "image/gif",
      extension: "gif",
    } as const;
    const keys = new Set<string>();
    for (let i = 0; i < 20; i++) keys.add((await saveFile(disk, input)).key);
    expect(keys.size).toBe(20);
  });

  it("refuses a tenant id or a content type that does not fit", async () => {
    const bytes = new Uint8Array([1]);
    await expect(
      saveFile(disk, { tenantId: "../etc", bytes, contentType: "image/png", extension: "png" }),
    ).rejects.toThrow();
    await expect(
      saveFile(disk, { tenantId: "main", bytes, contentType: "text/html", extension: "png" }),
    ).rejects.toThrow();
  });

  it.each([
    "main/../../etc/passwd",
    "../main/0123456789abcdef0123456789abcdef.png",
    "main/0123456789abcdef0123456789abcdef.svg",
    "main/0123456789ABCDEF0123456789ABCDEF.png",
    "main/0123456789abcdef.png",
    "/main/0123456789abcdef0123456789abcdef.png",
    "Main/0123456789abcdef0123456789abcdef.png",
    "main/sub/0123456789abcdef0123456789abcdef.png",
    "main\\0123456789abcdef0123456789abcdef.png",
  ])("rejects the key %j without touching the disk", async (key) => {
    expect(isValidFileKey(key)).toBe(false);
    expect(await readFile(disk, key)).toBeNull();
  });

  it("takes the variants of any width, one pixel to 9,999 (an image under 10 px wide was refused)", () => {
    for (const width of [1, 9, 10, 1200, 9999]) {
      expect(isValidFileKey(`main/0123456789abcdef0123456789abcdef-${width}.avif`)).toBe(true);
    }
    expect(isValidFileKey("main/0123456789abcdef0123456789abcdef-0.avif")).toBe(false);
    expect(isValidFileKey("main/0123456789abcdef0123456789abcdef-10000.avif")).toBe(false);
  });

  it("answers null for a valid key with nothing stored, and reads .jpeg as JPEG", async () => {
    expect(await readFile(disk, "main/0123456789abcdef0123456789abcdef.webp")).toBeNull();
    const key = "main/fedcba9876543210fedcba9876543210.jpeg";
    writeFileSync(join(root, key), Buffer.from([0xff, 0xd8, 0xff]));
    expect((await readFile(disk, key))?.contentType).toBe("image/jpeg");
  });
});
