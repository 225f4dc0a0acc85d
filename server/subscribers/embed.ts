import { MAX_EMAIL_LENGTH } from "../../shared/schemas/email";
import { EMBED_FORM_PATH, EMBED_SUBSCRIBE_PATH, siteOrigin } from "../../shared/schemas/embed";
import { SIGNUP_LIMITS } from "../../shared/schemas/signup";
import { escapeHtml } from "../html-entities";
import type { TenantConfig } from "../tenants/config";
import { tenantLink } from "./links";
import type { SignupFormData } from "./signup-form-data";
import type { SubscriptionContext } from "./subscribers";

/*
 * Embedded sign-up forms (issue 35, target 6): a plain HTML form on another site, or the iframe
 * /embed/form, posting to /embed/subscribe. Who may post is decided here; the sign-up itself is the
 * site's own (signup-submission.ts: rate limits, honeypot, double opt-in, consent record).
 */

/** The sites that may use the tenant's form: its allowed sites and its own origin(s). */
export function embedAllowedOrigins(
  tenant: Pick<TenantConfig, "embedOrigins">,
  ownOrigins: readonly string[],
): Set<string> {
  return new Set([...tenant.embedOrigins, ...ownOrigins]);
}

/** A header's URL reduced to its origin, or null ("null", missing, not http(s)). */
function originOfUrl(value: string | null): string | null {
  if (!value || value === "null") return null;
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:" ? url.origin : null;
  } catch {
    return null;
  }
}

export type EmbedPostSource =
  | { allowed: true; origin: string; page: string }
  | { allowed: false; origin: string | null };

/**
 * Where a post to /embed/subscribe comes from, by what the browser says. A browser sends Origin
 * with every POST (cross-site too), and a Referer cut to the origin under the default
 * strict-origin-when-cross-origin policy (the full URL when the site's policy allows it). The
 * Origin decides; without one (or "null"), the Referer's origin. Neither: refused, as nothing
 * shows the form was on an allowed site (a browser always sends one of them to a site it posts to;
 * a script calling without either can use the API). The page recorded is the Referer when it is on
 * the same origin, else the origin itself.
 */
export function embedPostSource(headers: Headers, allowed: ReadonlySet<string>): EmbedPostSource {
  const referer = headers.get("referer");
  const origin = originOfUrl(headers.get("origin")) ?? originOfUrl(referer);
  if (!origin || !allowed.has(origin)) return { allowed: false, origin };
  const page = referer && originOfUrl(referer) === origin ? referer : origin;
  return { allowed: true, origin, page: page.slice(0, 300) };
}

/**
 * The page a framed form is on, as the frame's own GET saw it (its Referer), carried in the form:
 * kept only when it is on one of the allowed sites, so a forged field names no other site.
 */
export function framedPage(value: unknown, allowed: ReadonlySet<string>): string | null {
  if (typeof value !== "string" || value.length > 300) return null;
  const origin = originOfUrl(value);
  return origin && siteOrigin(origin) && allowed.has(origin) ? value : null;
}

/** The snippet's form action: the tenant's own address (with ?subdomain= where it needs one). */
export function embedActionUrl(ctx: Pick<SubscriptionContext, "origin" | "tenant">): string {
  return tenantLink(ctx, EMBED_SUBSCRIBE_PATH);
}

export function embedFormUrl(ctx: Pick<SubscriptionContext, "origin" | "tenant">): string {
  return tenantLink(ctx, EMBED_FORM_PATH);
}

/**
 * The HTML staff paste into another site: a plain form posting to this tenant's /embed/subscribe,
 * working without JavaScript, with the same fields as the site's own form and its honeypot.
 */
export function embedSnippet(
  ctx: Pick<SubscriptionContext, "origin" | "tenant">,
  form: SignupFormData,
): string {
  const lists =
    form.lists.length > 1
      ? [
          "  <fieldset>",
          "    <legend>Newsletters</legend>",
          '    <input type="hidden" name="chooseLists" value="1">',
          ...form.lists.map(
            (list) =>
              `    <label><input type="checkbox" name="lists" value="${escapeHtml(list.key)}"${list.key === form.defaultList ? " checked" : ""}> ${escapeHtml(list.name)}</label>`,
          ),
          "  </fieldset>",
        ]
      : [`  <input type="hidden" name="lists" value="${escapeHtml(form.defaultList)}">`];
  return [
    `<form method="post" action="${escapeHtml(embedActionUrl(ctx))}" accept-charset="utf-8">`,
    '  <label for="herald-email">Email</label>',
    `  <input id="herald-email" type="email" name="email" required maxlength="${MAX_EMAIL_LENGTH}" autocomplete="email">`,
    '  <label for="herald-name">Name (optional)</label>',
    `  <input id="herald-name" type="text" name="name" maxlength="${SIGNUP_LIMITS.name}" autocomplete="name">`,
    ...lists,
    "  <!-- Left empty by people; a robot that fills it in is ignored. -->",
    '  <div aria-hidden="true" style="position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden">',
    '    <label for="herald-website">Leave this field empty</label>',
    '    <input id="herald-website" type="text" name="website" tabindex="-1" autocomplete="off">',
    "  </div>",
    '  <button type="submit">Subscribe</button>',
    "</form>",
  ].join("\n");
}

/**
 * The iframe staff paste instead. Its referrer policy lets the browser send the whole address of
 * the page around it (not only its origin), which /embed/form keeps as the consent record's page.
 */
export function embedIframe(ctx: Pick<SubscriptionContext, "origin" | "tenant">): string {
  const title = `Subscribe to ${ctx.tenant.branding.companyName}`;
  return `<iframe src="${escapeHtml(embedFormUrl(ctx))}" title="${escapeHtml(title)}" width="100%" height="480" style="border:0;max-width:32rem" loading="lazy" referrerpolicy="no-referrer-when-downgrade"></iframe>`;
}
