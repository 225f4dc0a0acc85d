import { textOn } from "../../shared/theme";
import { loadSharp } from "../files/images";
import { type Face, loadFaces, measure, outline } from "./fonts";
import { type Box, fitText, textPath } from "./layout";

/*
 * The social pack's images (issue 36): the link share (1200×627, LinkedIn's link preview), the
 * feed square (1080×1080) and a quote card per pull quote (1080×1080), in the tenant's colours,
 * logo (else its initial) and name, the text set in the project's own font (fonts.ts) and fitted by layout.ts. Everything
 * drawn lies inside a frame of FRAME_MARGIN px on each side: the margin is background only.
 */

export type SocialImageKind = "link" | "square" | "quote";

export const SOCIAL_IMAGE_SIZES: Record<SocialImageKind, { width: number; height: number }> = {
  link: { width: 1200, height: 627 },
  square: { width: 1080, height: 1080 },
  quote: { width: 1080, height: 1080 },
};

export const FRAME_MARGIN = 56;

/** The tenant's logo decoded and scaled to fit LOGO_BOX (server/social/logo.ts). */
export interface SocialLogo {
  png: Buffer;
  width: number;
  height: number;
  /** names the pixels, for the kept images' key */
  hash: string;
}

export interface SocialBranding {
  primaryColor: string;
  secondaryColor: string;
  /** the site's background: the logo sits on it, as in the site's header */
  backgroundColor: string;
  companyName: string;
  /** without one, the header carries a badge with the name's initial */
  logo?: SocialLogo | null;
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
  /** the logo's plate */
  plate: string;
  ink: string;
  accent: string;
  faces: Record<"regular" | "bold", Face>;
}

const HEADER = 56;
/** The logo's plate pads it by LOGO_PADDING on each side, inside the header row. */
const LOGO_PADDING = 8;
/** The most a logo may take of the header row: its height, and a wordmark's width. */
export const LOGO_BOX = { width: 360, height: HEADER - 2 * LOGO_PADDING };

/** Where the header's logo goes, to be laid over the drawn SVG. */
interface LogoPlacement {
  logo: SocialLogo;
  left: number;
  top: number;
}

/**
 * The header row, `HEADER` px high at `top`: the tenant's logo on a plate of the site's background
 * (a logo is made for it: on the brand colour a dark logo could vanish), or without a logo a badge
 * with the name's initial; then the name.
 */
function header(
  canvas: Canvas,
  branding: SocialBranding,
  top: number,
): { svg: string; logo: LogoPlacement | null } {
  const { faces, ink } = canvas;
  const name = branding.companyName.trim() || "Newsletter";
  const logo = branding.logo ?? null;
  const markWidth = logo ? logo.width + 2 * LOGO_PADDING : HEADER;
  const mark = logo
    ? `<rect x="${FRAME_MARGIN}" y="${top}" width="${markWidth}" height="${HEADER}" rx="12" fill="${canvas.plate}"/>`
    : initialBadge(canvas, name, top);
  const nameBox = { width: canvas.width - 2 * FRAME_MARGIN - markWidth - 20, height: 44 };
  const set = fitText(name, nameBox, { face: faces.bold, max: 30, min: 14, leading: 1.1 });
  const nameTop = set ? top + (HEADER - set.height) / 2 : top;
  return {
    svg: [
      mark,
      set ? textPath(faces.bold, set, FRAME_MARGIN + markWidth + 20, nameTop, ink) : "",
    ].join(""),
    logo: logo
      ? {
          logo,
          left: FRAME_MARGIN + LOGO_PADDING,
          top: top + Math.round((HEADER - logo.height) / 2),
        }
      : null,
  };
}

/** A square of the ink's tint with the name's first letter. */
function initialBadge(canvas: Canvas, name: string, top: number): string {
  const { faces, ink } = canvas;
  const initial = Array.from(name)[0]?.toUpperCase() ?? "N";
  const initialSize = 30;
  const initialX = FRAME_MARGIN + (HEADER - measure(faces.bold, initial, initialSize)) / 2;
  const baseline = top + HEADER / 2 + initialSize * 0.36;
  return [
    `<rect x="${FRAME_MARGIN}" y="${top}" width="${HEADER}" height="${HEADER}" rx="12" fill="${ink}" fill-opacity="0.14"/>`,
    `<path d="${outline(faces.bold, initial, initialX, baseline, initialSize)}" fill="${ink}"/>`,
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
  const head = header(canvas, branding, FRAME_MARGIN);
  const parts = [head.svg, accentBar(canvas, FRAME_MARGIN + 80)];
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
  return { parts, logo: head.logo };
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
  const head = header(canvas, branding, headerTop);
  const parts = [
    `<path d="${outline(faces.bold, "“", FRAME_MARGIN - 6, markBaseline, mark)}" fill="${canvas.accent}"/>`,
    textPath(faces.bold, set, FRAME_MARGIN, quoteTop, canvas.ink),
    source
      ? textPath(faces.regular, source, FRAME_MARGIN, quoteTop + set.height + 28, canvas.ink, 0.85)
      : "",
    head.svg,
  ];
  return { parts, logo: head.logo };
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
    plate: escapeXml(branding.backgroundColor || "#ffffff"),
    ink: escapeXml(textOn(background)),
    accent: escapeXml(branding.secondaryColor),
    faces: await loadFaces(),
  };
  const { parts, logo } =
    kind === "quote"
      ? quoteCard(canvas, content, branding)
      : titleCard(canvas, content, branding, kind);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}"><rect width="100%" height="100%" fill="${escapeXml(background)}"/>${parts.join("")}</svg>`;
  const sharp = await loadSharp();
  // The logo is laid over the drawn SVG by sharp (not an SVG <image>: librsvg would decode it
  // again at every image, and an SVG logo inside an SVG could reach for other files).
  const overlay = logo ? [{ input: logo.logo.png, left: logo.left, top: logo.top }] : [];
  return sharp(Buffer.from(svg)).composite(overlay).png({ compressionLevel: 9 }).toBuffer();
}
