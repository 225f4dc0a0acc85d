import { hash } from "node:crypto";
import { textOn } from "../../shared/theme";
import { loadSharp } from "../files/images";
import { fileStoreFor, readFile } from "../files/store";
import { findImagesByUrl } from "../files/stored-images";
import { MiB, memoryCache, stringBytes } from "../memory-cache";
import type { TenantScope } from "../scope";
import type { TenantConfig } from "../tenants/config";
import type { Newsletter } from "./model";

/*
 * Share cards (issue 15, part 4): the picture LinkedIn, X and Facebook show for a link, 1200×630.
 * A newsletter's is its cover, cropped to the card; without one, or for the site's other pages, a
 * card drawn from the tenant's branding (its colours, its name, the title).
 */

export const CARD_WIDTH = 1200;
export const CARD_HEIGHT = 630;

type Branding = TenantConfig["branding"];

/** The card's address; `v` changes with the newsletter and the branding, so shares refresh. */
export function shareCardUrl(
  origin: string,
  newsletter: Pick<Newsletter, "slug" | "updatedAt" | "coverImage">,
  branding?: Branding,
): string {
  // One-shot: a Hash object per page view cost more than the rest of the loader's own work.
  const version = hash(
    "sha256",
    `${newsletter.updatedAt}|${newsletter.coverImage ?? ""}|${brandingKey(branding)}`,
    "base64url",
  ).slice(0, 10);
  return `${origin}/newsletter/${encodeURIComponent(newsletter.slug)}/share-card?v=${version}`;
}

const brandingKey = (branding?: Branding) =>
  branding ? `${branding.primaryColor}|${branding.secondaryColor}|${branding.companyName}` : "";

export interface RenderedCard {
  bytes: Buffer;
  contentType: "image/png" | "image/jpeg";
}

// Drawing a card takes tens of milliseconds; the few that are shared at once are kept (a card is
// 30–150 KB: 16 MiB is a hundred or more). The key names everything the card shows.
const kept = memoryCache<string, RenderedCard>({
  maxBytes: 16 * MiB,
  bytesOf: (card, key) => card.bytes.length + stringBytes(key),
});

async function remember(key: string, render: () => Promise<RenderedCard>): Promise<RenderedCard> {
  const hit = kept.get(key);
  if (hit) return hit;
  const card = await render();
  kept.set(key, card);
  return card;
}

/** A published newsletter's card: its cover cropped to 1200×630, or a branded card with its title. */
export async function newsletterShareCard(
  ctx: TenantScope,
  newsletter: Newsletter,
  branding: Branding,
): Promise<RenderedCard> {
  const key = `${ctx.tenantId}|${newsletter.id}|${newsletter.updatedAt}|${newsletter.coverImage}|${brandingKey(branding)}`;
  return remember(key, async () => {
    const cover = newsletter.coverImage ? await coverBytes(ctx, newsletter.coverImage) : null;
    if (cover) {
      const sharp = await loadSharp();
      const bytes = await sharp(cover)
        .resize(CARD_WIDTH, CARD_HEIGHT, { fit: "cover", position: "attention" })
        .flatten({ background: "#ffffff" })
        .jpeg({ quality: 82, mozjpeg: true })
        .toBuffer();
      return { bytes, contentType: "image/jpeg" };
    }
    return brandCard(branding, {
      title: newsletter.title,
      footer: `${branding.companyName} · Newsletter`,
    });
  });
}

/** The tenant's own card, for pages without one of their own. */
export async function siteShareCard(tenantId: string, branding: Branding): Promise<RenderedCard> {
  return remember(`${tenantId}|site|${brandingKey(branding)}`, () =>
    brandCard(branding, { title: branding.companyName, footer: "" }),
  );
}

async function coverBytes(ctx: TenantScope, url: string): Promise<Buffer | null> {
  const image = (await findImagesByUrl(ctx.db, ctx.tenantId, [url])).get(url);
  if (!image) return null;
  return (await readFile(fileStoreFor(ctx.db), image.key))?.bytes ?? null;
}

const escapeXml = (text: string) => text.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);

/**
 * Words in lines of at most `width` characters, at most `lines` lines (the last one ending in "…"
 * when the text is longer). Character counts stand in for measured text: the card's font is a
 * plain sans-serif whose average letter is about 0.55 em wide.
 */
export function wrapWords(text: string, width: number, lines: number): string[] {
  const out: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const piece = word.length > width ? `${word.slice(0, width - 1)}…` : word;
    if (!line) line = piece;
    else if (line.length + 1 + piece.length <= width) line = `${line} ${piece}`;
    else {
      out.push(line);
      line = piece;
    }
  }
  if (line) out.push(line);
  if (out.length <= lines) return out;
  const kept = out.slice(0, lines);
  const last = kept[lines - 1] ?? "";
  kept[lines - 1] = `${last.length >= width ? last.slice(0, width - 1) : last}…`;
  return kept;
}

async function brandCard(
  branding: Branding,
  text: { title: string; footer: string },
): Promise<RenderedCard> {
  const background = branding.primaryColor;
  const ink = textOn(background);
  // Long titles get a smaller size before they are cut.
  const large = wrapWords(text.title, 26, 4);
  const fits = large.join(" ").length >= text.title.trim().replace(/\s+/g, " ").length;
  const size = fits ? 68 : 54;
  const lines = fits ? large : wrapWords(text.title, 33, 5);
  const lineHeight = Math.round(size * 1.18);
  const top = 250 - ((lines.length - 1) * lineHeight) / 2;
  const font = "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif";
  const initial = escapeXml(branding.companyName.trim().charAt(0).toUpperCase() || "H");
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${CARD_WIDTH}" height="${CARD_HEIGHT}" viewBox="0 0 ${CARD_WIDTH} ${CARD_HEIGHT}">
  <rect width="100%" height="100%" fill="${escapeXml(background)}"/>
  <rect y="${CARD_HEIGHT - 18}" width="100%" height="18" fill="${escapeXml(branding.secondaryColor)}"/>
  <rect x="80" y="64" width="64" height="64" rx="14" fill="${escapeXml(ink)}" fill-opacity="0.14"/>
  <text x="112" y="109" font-family="${font}" font-size="36" font-weight="700" text-anchor="middle" fill="${escapeXml(ink)}">${initial}</text>
  <text x="164" y="108" font-family="${font}" font-size="30" font-weight="700" fill="${escapeXml(ink)}">${escapeXml(branding.companyName.slice(0, 48))}</text>
  ${lines
    .map(
      (line, index) =>
        `<text x="80" y="${Math.round(top + index * lineHeight + size)}" font-family="${font}" font-size="${size}" font-weight="700" fill="${escapeXml(ink)}">${escapeXml(line)}</text>`,
    )
    .join("\n  ")}
  ${text.footer ? `<text x="80" y="${CARD_HEIGHT - 60}" font-family="${font}" font-size="28" fill="${escapeXml(ink)}" fill-opacity="0.85">${escapeXml(text.footer.slice(0, 70))}</text>` : ""}
</svg>`;
  const sharp = await loadSharp();
  const bytes = await sharp(Buffer.from(svg)).png({ compressionLevel: 9 }).toBuffer();
  return { bytes, contentType: "image/png" };
}
