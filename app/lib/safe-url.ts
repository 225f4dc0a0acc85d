/**
 * Links staff may put into a newsletter: web and mail addresses, and paths on this site. Anything
 * else (javascript:, data:, vbscript:, …) is refused; the server's sanitiser drops it again on save.
 * Returns the URL to store, or null when it is refused.
 */
export function safeLinkUrl(input: string): string | null {
  const url = input.trim();
  // Browsers ignore whitespace and control characters inside a scheme ("java\tscript:").
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  const probe = url.replace(/[\u0000-\u0020\u007f]+/g, "");
  if (!probe) return null;
  if (probe.startsWith("#")) return url;
  if (probe.startsWith("/")) return /^\/[/\\]/.test(probe) ? null : url;
  const scheme = probe.match(/^([a-z][a-z0-9+.-]*):/i)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    // "example.com/page" means the web site, as people type it.
    return /^[a-z0-9-]+(\.[a-z0-9-]+)+(?=$|[/?#:])/i.test(probe) ? `https://${url}` : null;
  }
  if (scheme === "http" || scheme === "https") return parses(url) ? url : null;
  if (scheme === "mailto") return probe.length > "mailto:".length ? url : null;
  return null;
}

function parses(url: string): boolean {
  try {
    new URL(url);
    return true;
  } catch {
    return false;
  }
}
