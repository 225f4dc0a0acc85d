/*
 * The newsletter editor's blocks (issue 35, target 2): how each is written in stored content HTML.
 * The one place the editor (app/components/editor/blocks.ts), the sanitiser
 * (server/newsletters/sanitize.ts), the page and the mail (server/content/blocks.ts) read it from.
 *
 *   button      <div data-block="button"><a href="URL">Label</a></div>
 *   divider     <hr>
 *   callout     <div data-block="callout" data-tone="info" data-icon="💡"><p>…</p></div>
 *   image       <figure><img src alt width height><figcaption>Caption</figcaption></figure>
 *   bookmark    <div data-block="bookmark"><a href="URL"><img data-part="image" src alt="">
 *                 <span data-part="title">…</span><span data-part="description">…</span>
 *                 <span data-part="site">example.com</span></a></div>
 *   embed       <div data-block="embed" data-provider="youtube"><a href="URL">
 *                 <img data-part="image" src alt><span data-part="title">…</span>
 *                 <span data-part="site">Watch on YouTube</span></a></div>
 *   sections    <div data-block="web-only">…</div>, <div data-block="email-only">…</div>
 */

export const BLOCK_KINDS = [
  "button",
  "callout",
  "bookmark",
  "embed",
  "web-only",
  "email-only",
] as const;
export type BlockKind = (typeof BLOCK_KINDS)[number];

/** The parts of a link card (bookmark or embed), each a `data-part` inside its link. */
export const CARD_PARTS = ["image", "title", "description", "site"] as const;

/** A callout's colour; the first is the default. */
export const CALLOUT_TONES = ["info", "success", "warning", "neutral"] as const;
export type CalloutTone = (typeof CALLOUT_TONES)[number];

/** Background and border of each tone: the page's box and the mail's table cell alike. */
export const CALLOUT_COLOURS: Record<CalloutTone, { background: string; border: string }> = {
  info: { background: "#e8f1fd", border: "#8bb4ea" },
  success: { background: "#e7f6ec", border: "#86c99c" },
  warning: { background: "#fdf3dc", border: "#e3b650" },
  neutral: { background: "#f1f1f3", border: "#c4c4cc" },
};

/** An icon is one emoji or a few characters, no more. */
export const MAX_CALLOUT_ICON_LENGTH = 8;
export const MAX_BUTTON_LABEL_LENGTH = 80;
export const MAX_CARD_TITLE_LENGTH = 200;
export const MAX_CARD_DESCRIPTION_LENGTH = 500;

export const EMBED_PROVIDERS = {
  youtube: { name: "YouTube", action: "Watch on YouTube" },
  vimeo: { name: "Vimeo", action: "Watch on Vimeo" },
  x: { name: "X", action: "View on X" },
  linkedin: { name: "LinkedIn", action: "View on LinkedIn" },
} as const;
export type EmbedProvider = keyof typeof EMBED_PROVIDERS;

export function isEmbedProvider(value: string): value is EmbedProvider {
  return Object.hasOwn(EMBED_PROVIDERS, value);
}

/** An absolute http(s) address, as cards, thumbnails and fetched pages must be; else null. */
export function webUrl(input: string): string | null {
  const trimmed = input.trim();
  if (!/^https?:\/\//i.test(trimmed)) return null;
  try {
    return new URL(trimmed).toString();
  } catch {
    return null;
  }
}

/** The site a card links to, as readers know it: "example.com". */
export function siteOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, "");
  } catch {
    return "";
  }
}

/**
 * Which video or social site a link is on, and what can be known of it without asking that site:
 * a YouTube video's thumbnail has a fixed address. Null for any other link (a bookmark then).
 */
export function embedOf(input: string): { provider: EmbedProvider; thumbnail: string } | null {
  const url = webUrl(input);
  if (!url) return null;
  const { hostname, pathname, searchParams } = new URL(url);
  const host = hostname.toLowerCase().replace(/^(www|m|mobile)\./, "");
  if (host === "youtube.com" || host === "youtu.be" || host === "youtube-nocookie.com") {
    const id =
      host === "youtu.be"
        ? pathname.slice(1).split("/")[0]
        : (searchParams.get("v") ?? /^\/(?:embed|shorts|live)\/([^/]+)/.exec(pathname)?.[1]);
    const valid = id && /^[\w-]{6,20}$/.test(id) ? id : null;
    return {
      provider: "youtube",
      thumbnail: valid ? `https://i.ytimg.com/vi/${valid}/hqdefault.jpg` : "",
    };
  }
  if (host === "vimeo.com" || host === "player.vimeo.com")
    return { provider: "vimeo", thumbnail: "" };
  if (host === "x.com" || host === "twitter.com") return { provider: "x", thumbnail: "" };
  if (host === "linkedin.com" || host.endsWith(".linkedin.com"))
    return { provider: "linkedin", thumbnail: "" };
  return null;
}
