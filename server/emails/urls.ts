/**
 * Mail clients resolve nothing against the sender's site: every URL in a mail must be absolute
 * (issue 12). These helpers make a URL absolute on the tenant's public origin.
 */

/** Schemes a mail may carry as they are. */
const KEPT_SCHEME = /^(?:https?|mailto|tel):/i;
/** Any scheme (`javascript:`, `data:`, `cid:` …): not a place on the tenant's site. */
const ANY_SCHEME = /^[a-z][a-z0-9+.-]*:/i;
/** Markers the sender fills per recipient (%%HERALD_…%%) are absolute once filled. */
const MARKER = /^%%HERALD_[A-Z0-9_]+%%$/;

/**
 * `url` made absolute on `origin`: `/uploads/a.png` → `https://site.example/uploads/a.png`,
 * `//cdn.example/x` → `https://cdn.example/x`. Answers null for a URL a mail cannot use
 * (another scheme, or one that does not parse), so the caller drops it.
 */
export function absoluteUrl(url: string, origin: string): string | null {
  const trimmed = url.trim();
  if (MARKER.test(trimmed)) return trimmed;
  if (KEPT_SCHEME.test(trimmed)) return trimmed;
  if (ANY_SCHEME.test(trimmed)) return null;
  try {
    const base = new URL(origin);
    // A protocol-relative URL takes https: mail is read far from the page that sent it.
    const resolved = new URL(trimmed.startsWith("//") ? `https:${trimmed}` : trimmed, base);
    return /^https?:$/.test(resolved.protocol) ? resolved.toString() : null;
  } catch {
    return null;
  }
}

/** A `srcset` with each candidate's URL made absolute; candidates that cannot be are dropped. */
export function absoluteSrcset(srcset: string, origin: string): string {
  return srcset
    .split(",")
    .map((candidate) => candidate.trim())
    .filter(Boolean)
    .flatMap((candidate) => {
      const [url = "", ...descriptor] = candidate.split(/\s+/);
      const absolute = absoluteUrl(url, origin);
      return absolute ? [[absolute, ...descriptor].join(" ")] : [];
    })
    .join(", ");
}
