import { z } from "../zod";

/** The iframe's page, and the handler both the iframe and the snippet post to. */
export const EMBED_FORM_PATH = "/embed/form";
export const EMBED_SUBSCRIBE_PATH = "/embed/subscribe";

/** How many sites one tenant may embed its sign-up form on: enough for a family of sites. */
export const MAX_EMBED_SITES = 20;
const MAX_SITE_LENGTH = 200;

export const EMBED_MESSAGES = {
  saved: "Allowed sites saved.",
  tooMany: `At most ${MAX_EMBED_SITES} sites.`,
  notASite: (site: string) =>
    `"${site}" is not a site's address. Enter one like https://www.example.com, without a path, wildcard (*), quotes or %-escapes.`,
  refusedTitle: "This form cannot be used here",
  refused:
    "This sign-up form may only be used on the sites its publisher has allowed. Nothing was saved.",
} as const;

/**
 * What a site's address may be written with: letters (international names too), digits, dots,
 * hyphens, the scheme's and port's colons and slashes, and an IPv6 address's brackets. Never `*`,
 * `%`, quotes, braces, `;` or spaces: each would reach the frame-ancestors header (issue 44,
 * finding 5: `https://*` let any site frame the form).
 */
const SITE_CHARACTERS = /^[\p{L}\p{N}.:/[\]-]+$/u;
/** A host as the URL parser leaves it: DNS labels (punycode for international names), or [IPv6]. */
const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const IPV6_HOST = /^\[[0-9a-f:.]+\]$/;

/**
 * One site as an origin ("https://www.example.com"): scheme http or https (https when none is
 * written), a host name or IP address in lower case, no default port, no path, query, fragment,
 * credentials, wildcard, percent-escape or quote. Null when it is not one.
 */
export function siteOrigin(written: string): string | null {
  const text = written.trim();
  if (!text || text.length > MAX_SITE_LENGTH || !SITE_CHARACTERS.test(text)) return null;
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  if (url.username || url.password || url.search || url.hash) return null;
  if (url.pathname !== "/" || !url.hostname) return null;
  if (!HOST_NAME.test(url.hostname) && !IPV6_HOST.test(url.hostname)) return null;
  return url.origin;
}

/** True when `value` is already an origin as siteOrigin writes it (stored or about to be sent). */
export function isSiteOrigin(value: string): boolean {
  return siteOrigin(value) === value;
}

/**
 * The staff form's allowed sites: one per line (commas and spaces also separate), each normalised
 * to its origin, duplicates dropped, at most MAX_EMBED_SITES.
 */
export const embedSitesSchema = z.object({
  sites: z
    .string()
    .max(MAX_EMBED_SITES * (MAX_SITE_LENGTH + 2), EMBED_MESSAGES.tooMany)
    .optional()
    .transform((text, issues) => {
      const origins: string[] = [];
      for (const written of (text ?? "").split(/[\s,]+/).filter(Boolean)) {
        const origin = siteOrigin(written);
        if (!origin) {
          issues.addIssue({
            code: "custom",
            message: EMBED_MESSAGES.notASite(written.slice(0, 80)),
          });
          return z.NEVER;
        }
        if (!origins.includes(origin)) origins.push(origin);
      }
      if (origins.length > MAX_EMBED_SITES) {
        issues.addIssue({ code: "custom", message: EMBED_MESSAGES.tooMany });
        return z.NEVER;
      }
      return origins;
    }),
});
