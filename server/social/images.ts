import { textOn } from "../../shared/theme";
import { loadSharp } from "../files/images";
import { type Face, loadFaces, measure, outline } from "./fonts";
import { type Box, fitText, textPath } from "./layout";

/*
 * The social pack's images (issue 36): the link share (1200×627, LinkedIn's link preview), the
 * feed square (1080×1080) and a quote card per pull quote (1080×1080), in the tenant's colours
 * and name, the text set in the project's own font (fonts.ts) and fitted by layout.ts. Everything
 * drawn lies inside a frame of FRAME_MARGIN px on each side: the margin is background only.
 */

export type SocialImageKind = "link" | "square" | "quote";

export const SOCIAL_IMAGE_SIZES: Record<SocialImageKind, { width: number; height: number }> = {
  link: { width: 1200, height: 627 },
  square: { width: 1080, height: 1080 },
  quote: { width: 1080, height: 1080 },
};

export const FRAME_MARGIN = 56;

export interface SocialBranding {
  primaryColor: string;
  secondaryColor: string;
  companyName: string;
}

export interface SocialImageContent {
  title: string;
  excerpt?: string;
  /** the pull quote, for a quote card */
  quote?: string;
  /** where the newsletter is read, shown small ("keydiscovery.com/newsletter") */
  site: string;
}

/** The text cannot be set at a legible size in the image (a quote of several paragraphs). */
export class TextTooLongError extends Error {}

const escapeXml = (text: string) => text.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);

interface Canvas {
  width: number;
  height: number;
  background: string;
  ink: string;
  accent: string;
  faces: Record<"regular" | "bold", Face>;
}

const HEADER = 56;

/** The badge with the tenant's initial and its name, in a row `HEADER` px high at `top`. */
function header(canvas: Canvas, branding: SocialBranding, top: number): string {
  const { faces, ink } = canvas;
  const name = branding.companyName.trim() || "Newsletter";
  const initial = Array.from(name)[0]?.toUpperCase() ?? "N";
  const initialSize = 30;
  const initialX = FRAME_MARGIN + (HEADER - measure(faces.bold, initial, initialSize)) / 2;
  const baseline = top + HEADER / 2 + initialSize * 0.36;
  const nameBox = { width: canvas.width - 2 * FRAME_MARGIN - HEADER - 20, height: 44 };
  const set = fitText(name, nameBox, { face: faces.bold, max: 30, min: 14, leading: 1.1 });
  const nameTop = set ? top + (HEADER - set.height) / 2 : top;
  return [
    `<rect x="${FRAME_MARGIN}" y="${top}" width="${HEADER}" height="${HEADER}" rx="12" fill="${ink}" fill-opacity="0.14"/>`,
    `<path d="${outline(faces.bold, initial, initialX, baseline, initialSize)}" fill="${ink}"/>`,
    set ? textPath(faces.bold, set, FRAME_MARGIN + HEADER + 20, nameTop, ink) : "",
  ].join("");
}

function fitOrThrow(text: string, box: Box, face: Face, max: number, min: number, leading = 1.15) {
  const set = fitText(text, box, { face, max, min, leading });
  if (!set) throw new TextTooLongError(`The text does not fit a ${box.width}×${box.height} box`);
  return set;
}

/** The small line at the bottom of the frame: where to read it. */
function footer(canvas: Canvas, site: string): { svg: string; height: number } {
  const box = { width: canvas.width - 2 * FRAME_MARGIN, height: 34 };
  const set = fitText(site, box, { face: canvas.faces.regular, max: 26, min: 14, leading: 1.1 });
  if (!set) return { svg: "", height: 0 };
  const top = canvas.height - FRAME_MARGIN - set.height;
  return {
    svg: textPath(canvas.faces.regular, set, FRAME_MARGIN, top, canvas.ink, 0.85),
    height: set.height,
  };
}

const accentBar = (canvas: Canvas, top: number) =>
  `<rect x="${FRAME_MARGIN}" y="${top}" width="96" height="8" rx="4" fill="${canvas.accent}"/>`;

/** The title card: header, accent bar, the title as large as fits, the excerpt (square), footer. */
function titleCard(
  canvas: Canvas,
  content: SocialImageContent,
  branding: SocialBranding,
  kind: "link" | "square",
) {
  const { faces } = canvas;
  const parts = [header(canvas, branding, FRAME_MARGIN), accentBar(canvas, FRAME_MARGIN + 80)];
  const foot = footer(canvas, content.site);
  const top = FRAME_MARGIN + 120;
  const bottom = canvas.height - FRAME_MARGIN - foot.height - 32;
  const width = canvas.width - 2 * FRAME_MARGIN;
  const room = { x: FRAME_MARGIN, y: top, width, height: bottom - top };
  const square = kind === "square";
  const title = fitOrThrow(content.title, room, faces.bold, square ? 84 : 72, 22, 1.12);
  const excerpt = content.excerpt?.trim();
  const left = room.height - title.height - 36;
  const under =
    square && excerpt && left >= 80
      ? fitText(
          excerpt,
          { width, height: left },
          {
            face: faces.regular,
            max: 34,
            min: 22,
            leading: 1.3,
          },
        )
      : null;
  // The title (and the square's excerpt under it) in the middle of their room.
  const height = title.height + (under ? 36 + under.height : 0);
  const titleTop = top + Math.floor((room.height - height) / 2);
  parts.push(textPath(faces.bold, title, FRAME_MARGIN, titleTop, canvas.ink));
  if (under) {
    parts.push(
      textPath(faces.regular, under, FRAME_MARGIN, titleTop + title.height + 36, canvas.ink, 0.9),
    );
  }
  parts.push(foot.svg);
  return parts;
}

/** A quote card: a large quotation mark, the quote as large as fits, its source, the header. */
function quoteCard(canvas: Canvas, content: SocialImageContent, branding: SocialBranding) {
  const { faces } = canvas;
  const quote = content.quote?.trim() ?? "";
  if (!quote) throw new TextTooLongError("A quote card needs a quote");
  const mark = 150;
  const markTop = FRAME_MARGIN;
  const width = canvas.width - 2 * FRAME_MARGIN;
  const source = fitText(
    `— ${content.title}`,
    { width, height: 80 },
    {
      face: faces.regular,
      max: 28,
      min: 16,
      leading: 1.2,
    },
  );
  const sourceHeight = source?.height ?? 0;
  const headerTop = canvas.height - FRAME_MARGIN - HEADER;
  const top = markTop + 120;
  const bottom = headerTop - 40 - sourceHeight - 28;
  const set = fitOrThrow(
    quote,
    { x: FRAME_MARGIN, y: top, width, height: bottom - top },
    faces.bold,
    60,
    24,
    1.25,
  );
  const markBaseline = markTop + mark * 0.72;
  // The quote and its source in the middle of their room.
  const quoteTop = top + Math.floor((bottom - top - set.height) / 2);
  return [
    `<path d="${outline(faces.bold, "“", FRAME_MARGIN - 6, markBaseline, mark)}" fill="${canvas.accent}"/>`,
    textPath(faces.bold, set, FRAME_MARGIN, quoteTop, canvas.ink),
    source
      ? textPath(faces.regular, source, FRAME_MARGIN, quoteTop + set.height + 28, canvas.ink, 0.85)
      : "",
    header(canvas, branding, headerTop),
  ];
}

/**
 * One image of the pack as PNG bytes. Throws TextTooLongError when the title or quote cannot be
 * set at a legible size (24 px and up for a quote, 22 for a title) — text is never cut.
 */
export async function renderSocialImage(
  kind: SocialImageKind,
  content: SocialImageContent,
  branding: SocialBranding,
): Promise<Buffer> {
  const { width, height } = SOCIAL_IMAGE_SIZES[kind];
  const background = branding.primaryColor;
  const canvas: Canvas = {
    width,
    height,
    background,
    ink: escapeXml(textOn(background)),
    accent: escapeXml(branding.secondaryColor),
    faces: await loadFaces(),
  };
  const parts =
    kind === "quote"
      ? quoteCard(canvas, content, branding)
      : titleCard(canvas, content, branding, kind);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}"><rect width="100%" height="100%" fill="${escapeXml(background)}"/>${parts.join("")}</svg>`;
  const sharp = await loadSharp();
  return sharp(Buffer.from(svg)).png({ compressionLevel: 9 }).toBuffer();
}
