import { type Face, measure, outline } from "./fonts";

/*
 * Text set in a box: wrapped at word boundaries by measured widths, the size lowered step by step
 * until every line fits the box; a word wider than the box is broken between letters. Nothing is
 * ever cut off: when the text cannot fit at the smallest size, there is no block (null).
 */

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface SetText {
  lines: string[];
  size: number;
  /** baseline to baseline */
  lineHeight: number;
  /** from the first line's top to the last line's bottom */
  height: number;
  /** the widest line's measured width */
  width: number;
}

export interface TextStyle {
  face: Face;
  /** the largest and smallest font sizes tried, px */
  max: number;
  min: number;
  /** line height as a multiple of the size */
  leading: number;
}

/** Pieces of a word too wide for `width`, each as long as fits (at least one letter). */
function breakWord(face: Face, word: string, size: number, width: number): string[] {
  const pieces: string[] = [];
  let piece = "";
  for (const char of Array.from(word)) {
    if (piece && measure(face, piece + char, size) > width) {
      pieces.push(piece);
      piece = char;
    } else piece += char;
  }
  if (piece) pieces.push(piece);
  return pieces;
}

/**
 * More characters than any box here shows at a legible size: not measured at all (issue 44,
 * finding 3: a huge blockquote or title took seconds of measuring on every save).
 */
export const MAX_SET_CHARS = 5_000;

/**
 * `text` in lines no wider than `width` at `size`; past `maxLines` lines it stops (the text does
 * not fit: the rest is not measured).
 */
export function wrapLines(
  face: Face,
  text: string,
  size: number,
  width: number,
  maxLines = Number.POSITIVE_INFINITY,
): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.trim().split(/\s+/).filter(Boolean)) {
    const pieces = measure(face, word, size) > width ? breakWord(face, word, size, width) : [word];
    for (const piece of pieces) {
      const candidate = line ? `${line} ${piece}` : piece;
      if (line && measure(face, candidate, size) > width) {
        lines.push(line);
        if (lines.length > maxLines) return lines;
        line = piece;
      } else line = candidate;
    }
  }
  if (line) lines.push(line);
  return lines;
}

/** The height of `count` lines at `size`. */
function blockHeight(face: Face, count: number, size: number, lineHeight: number): number {
  const em = (face.ascender - face.descender) / face.unitsPerEm;
  return count === 0 ? 0 : (count - 1) * lineHeight + size * em;
}

/** The largest size (from `style.max` down, 2 px at a time) at which `text` fits `box`. */
export function fitText(
  text: string,
  box: Pick<Box, "width" | "height">,
  style: TextStyle,
): SetText | null {
  if (text.length > MAX_SET_CHARS) return null;
  const em = (style.face.ascender - style.face.descender) / style.face.unitsPerEm;
  for (let size = style.max; size >= style.min; size -= 2) {
    const lineHeight = Math.round(size * style.leading);
    const maxLines = Math.max(0, Math.floor((box.height - size * em) / lineHeight) + 1);
    const lines = wrapLines(style.face, text, size, box.width, maxLines);
    const height = blockHeight(style.face, lines.length, size, lineHeight);
    if (height <= box.height) {
      const width = Math.max(0, ...lines.map((line) => measure(style.face, line, size)));
      return { lines, size, lineHeight, height, width };
    }
  }
  return null;
}

/** The set lines as one SVG path, the first line's top at `top`. */
export function textPath(
  face: Face,
  set: SetText,
  x: number,
  top: number,
  fill: string,
  opacity = 1,
): string {
  const ascent = (set.size * face.ascender) / face.unitsPerEm;
  const data = set.lines
    .map((line, index) => outline(face, line, x, top + ascent + index * set.lineHeight, set.size))
    .join("");
  const fade = opacity < 1 ? ` fill-opacity="${opacity}"` : "";
  return data ? `<path d="${data}" fill="${fill}"${fade}/>` : "";
}
