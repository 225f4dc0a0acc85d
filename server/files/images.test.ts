import { describe, expect, it } from "vitest";
import { detectImageType } from "./images";

const bytes = (...parts: (string | number[])[]) =>
  new Uint8Array(
    parts.flatMap((part) =>
      typeof part === "string" ? [...part].map((char) => char.charCodeAt(0)) : part,
    ),
  );

describe("detectImageType", () => {
  it.each([
    ["PNG", bytes([0x89], "PNG", [0x0d, 0x0a, 0x1a, 0x0a, 0, 0]), "image/png", "png"],
    ["JPEG", bytes([0xff, 0xd8, 0xff, 0xe0]), "image/jpeg", "jpg"],
    ["GIF87a", bytes("GIF87a", [1, 0]), "image/gif", "gif"],
    ["GIF89a", bytes("GIF89a", [1, 0]), "image/gif", "gif"],
    ["WebP", bytes("RIFF", [0x24, 0, 0, 0], "WEBPVP8 "), "image/webp", "webp"],
  ])("recognises %s by its magic bytes", (_label, input, contentType, extension) => {
    expect(detectImageType(input)).toEqual({ contentType, extension });
  });

  it.each([
    ["SVG", bytes('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')],
    ["SVG with an XML prolog", bytes('<?xml version="1.0"?><svg/>')],
    ["HTML", bytes("<!doctype html><script>alert(1)</script>")],
    ["plain text", bytes("just text")],
    ["a RIFF file that is not WebP", bytes("RIFF", [0, 0, 0, 0], "WAVEfmt ")],
    ["a truncated PNG signature", bytes([0x89], "PNG")],
    ["nothing", new Uint8Array(0)],
  ])("refuses %s", (_label, input) => {
    expect(detectImageType(input)).toBeNull();
  });
});
