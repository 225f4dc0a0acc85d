import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { Font, Glyph } from "opentype.js";
import { lazy } from "../lazy";

/*
 * The social images' type (issue 36; docs/decisions/045-social-pack.md): Inter, regular and bold,
 * from the @fontsource/inter package (SIL Open Font License 1.1), Latin and Latin Extended. Text is
 * laid out here with the font's own advance widths and drawn as SVG paths of its glyph outlines, so
 * the renderer never looks a font up: the server's fonts, whatever they are, are never used.
 */

export type Weight = "regular" | "bold";

const FILES: Record<Weight, readonly string[]> = {
  regular: ["inter-latin-400-normal.woff", "inter-latin-ext-400-normal.woff"],
  bold: ["inter-latin-700-normal.woff", "inter-latin-ext-700-normal.woff"],
};

/** A weight: the Latin face first, then the Latin Extended one for what the first lacks. */
export interface Face {
  fonts: readonly Font[];
  unitsPerEm: number;
  ascender: number;
  descender: number;
}

const require = createRequire(import.meta.url);

async function loadFace(weight: Weight): Promise<Face> {
  const opentype = await import("opentype.js");
  const parse = opentype.parse ?? opentype.default.parse;
  const fonts = await Promise.all(
    FILES[weight].map(async (file) => {
      const bytes = await readFile(require.resolve(`@fontsource/inter/files/${file}`));
      return parse(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    }),
  );
  const [first] = fonts;
  if (!first) throw new Error(`no font for ${weight}`);
  return {
    fonts,
    unitsPerEm: first.unitsPerEm,
    ascender: first.ascender,
    descender: first.descender,
  };
}

const loaders = { regular: lazy(() => loadFace("regular")), bold: lazy(() => loadFace("bold")) };

/** Both weights, parsed once per process (about 100 ms). */
export async function loadFaces(): Promise<Record<Weight, Face>> {
  const [regular, bold] = await Promise.all([loaders.regular(), loaders.bold()]);
  return { regular, bold };
}

/** The glyph of one character: from the first face that has it, else the first face's box. */
function glyphOf(face: Face, char: string): { glyph: Glyph; font: Font } {
  for (const font of face.fonts) {
    const glyph = font.charToGlyph(char);
    if (glyph.index !== 0) return { glyph, font };
  }
  const font = face.fonts[0] as Font;
  return { glyph: font.charToGlyph(char), font };
}

/** Characters drawn as they are typed: tabs and line breaks as spaces. */
const characters = (text: string) => Array.from(text.replace(/\s/g, " "));

/** The width of `text` at `size` px, from the font's advance widths. */
export function measure(face: Face, text: string, size: number): number {
  let width = 0;
  for (const char of characters(text)) {
    const { glyph, font } = glyphOf(face, char);
    width += ((glyph.advanceWidth ?? 0) * size) / font.unitsPerEm;
  }
  return width;
}

/** One line's outlines as SVG path data, its baseline at `y`, starting at `x`. */
export function outline(face: Face, text: string, x: number, y: number, size: number): string {
  let pen = x;
  let data = "";
  for (const char of characters(text)) {
    const { glyph, font } = glyphOf(face, char);
    if (char !== " ") data += glyph.getPath(pen, y, size).toPathData(2);
    pen += ((glyph.advanceWidth ?? 0) * size) / font.unitsPerEm;
  }
  return data;
}
