import sharp from "sharp";
import { describe, expect, it, vi } from "vitest";
import { getLogger } from "../logger";
import { FRAME_MARGIN, renderSocialImage, type SocialBranding, type SocialLogo } from "./images";
import { decodeLogo, tenantLogo } from "./logo";
import type { SocialScope } from "./pack";

const RED = [255, 0, 0];
const GREEN = [0, 255, 0];
const content = {
  title: "Five things about TAR",
  excerpt: "Technology-assisted review, explained.",
  quote: "Preserve first, argue later.",
  site: "example.com/newsletter",
};
const branding: SocialBranding = {
  primaryColor: "#0b3d91",
  secondaryColor: "#f5a623",
  backgroundColor: "#ffffff",
  companyName: "Acme Legal",
};

const solidPng = (width: number, height: number, hex: string) =>
  sharp({ create: { width, height, channels: 3, background: hex } })
    .png()
    .toBuffer();

/** The box around the pixels of one colour in a rectangle of a decoded PNG, and their count. */
async function pixelsOf(png: Buffer, rgb: number[], area: { top: number; bottom: number }) {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  let count = 0;
  const box = { left: Infinity, right: -1, top: Infinity, bottom: -1 };
  for (let y = area.top; y < area.bottom; y++) {
    for (let x = 0; x < info.width; x++) {
      const at = (y * info.width + x) * info.channels;
      if (rgb.every((value, channel) => data[at + channel] === value)) {
        count++;
        box.left = Math.min(box.left, x);
        box.right = Math.max(box.right, x);
        box.top = Math.min(box.top, y);
        box.bottom = Math.max(box.bottom, y);
      }
    }
  }
  return { count, width: box.right - box.left + 1, height: box.bottom - box.top + 1, box };
}

describe("the tenant's logo in the social images", () => {
  it("scales a raster logo into the header row, its aspect ratio kept", async () => {
    const logo = await decodeLogo(await solidPng(400, 100, "#ff0000"));
    expect([logo.width, logo.height]).toEqual([160, 40]);
    const png = await renderSocialImage("link", content, { ...branding, logo });
    const header = { top: FRAME_MARGIN, bottom: FRAME_MARGIN + 56 };
    const red = await pixelsOf(png, RED, header);
    expect([red.width, red.height]).toEqual([160, 40]);
    expect(red.count).toBe(160 * 40);
    // On its plate, inside the frame; nowhere else in the image.
    expect(red.box.left).toBeGreaterThanOrEqual(FRAME_MARGIN);
    expect((await pixelsOf(png, RED, { top: 0, bottom: 627 })).count).toBe(160 * 40);
    // Without a logo, the initial's badge: no red at all.
    const plain = await renderSocialImage("link", content, branding);
    expect((await pixelsOf(plain, RED, { top: 0, bottom: 627 })).count).toBe(0);
  });

  it("draws an SVG logo sharp at its size, and a tall one no higher than the row", async () => {
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10" viewBox="0 0 20 10"><rect width="20" height="10" fill="#00ff00"/></svg>',
    );
    const logo = await decodeLogo(svg);
    expect([logo.width, logo.height]).toEqual([80, 40]);
    // The quote card has its header at the bottom.
    const png = await renderSocialImage("quote", content, { ...branding, logo });
    const green = await pixelsOf(png, GREEN, { top: 1080 - FRAME_MARGIN - 56, bottom: 1080 });
    expect(green.count).toBe(80 * 40);
    const tall = await decodeLogo(await solidPng(100, 900, "#ff0000"));
    expect(tall.height).toBe(40);
    expect(tall.width).toBeLessThanOrEqual(5);
  });

  it("refuses bytes that are not an image", async () => {
    await expect(decodeLogo(Buffer.from("<html>not a logo</html>"))).rejects.toThrow();
  });

  it("falls back to the initial, with a warning, when the logo cannot be had", async () => {
    const warn = vi.spyOn(getLogger(), "warn").mockImplementation(() => undefined);
    const ctx = {
      tenantId: "acme",
      origin: "https://acme.example",
      tenant: { branding: { ...branding, logoUrl: "ftp://acme.example/logo.png" } },
    } as unknown as SocialScope;
    const logo: SocialLogo | null = await tenantLogo(ctx);
    expect(logo).toBeNull();
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ code: "social/logo-unusable", tenantId: "acme" }),
      expect.any(String),
    );
    // Kept: the pack's other images do not ask again.
    warn.mockClear();
    expect(await tenantLogo(ctx)).toBeNull();
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
  });
});
