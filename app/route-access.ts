/**
 * Who may call each route: the one place it is declared (issue 13, point 2). Keys are the route
 * patterns of app/routes.ts; the root middleware (server/auth/route-access.ts) enforces the
 * declaration before any loader or action runs, and tests/security/route-access.test.ts calls
 * every route and method as anonymous, as an editor of another tenant and as a super admin. A
 * route that is not declared here is refused at run time and fails that test.
 *
 * - `public`: anyone.
 * - `signed-link`: anyone with the link; the route checks the signed token in it.
 * - `signed-request`: a machine caller; the route checks the request's signature.
 * - `staff`: any signed-in staff member (else the sign-in page).
 * - `tenant-staff`: staff who may manage this site's tenant (else sign-in, or 403).
 * - `super-admin`: super admins (else sign-in, or 403).
 * - `tenant-manager`: super admins, by the tenant manager's rules (SPEC §6: /login, /unauthorized).
 * - `api-public`: JSON API open to anyone; a caller's token, when sent, may show more.
 * - `api-staff`, `api-super-admin`: JSON API for staff / super admins (401, 403 in SPEC §8's envelope).
 *
 * A route whose methods differ names each method; a method it does not name is answered by the
 * route itself (405). HEAD counts as GET.
 */
export type Access =
  | "public"
  | "signed-link"
  | "signed-request"
  | "staff"
  | "tenant-staff"
  | "super-admin"
  | "tenant-manager"
  | "api-public"
  | "api-staff"
  | "api-super-admin";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export type RouteAccess = Access | Partial<Record<HttpMethod, Access>>;

export const ROUTE_ACCESS: Readonly<Record<string, RouteAccess>> = {
  // Marketing and reading: the page cache serves these to anonymous visitors.
  "/": "public",
  "/about": "public",
  "/services": "public",
  "/products": "public",
  "/contact": "public",
  "/privacy": "public",
  "/terms": "public",
  "/newsletter": "public",
  "/newsletter/rss.xml": "public",
  "/newsletter/:id": "public",
  "/newsletter/tag/:tag": "public",
  "/newsletter/preview/:token": "public",
  "/newsletter/search": "public",
  "/newsletter/:id/share-card": "public",
  "/newsletter/archive/:year": "public",
  "/newsletter/subscribe": "public",
  // The embedded sign-up form: the handler refuses every origin but the tenant's allowed sites.
  "/embed/form": { GET: "public" },
  "/embed/subscribe": { POST: "public" },
  "/newsletters": "public",
  "/sitemap.xml": "public",
  "/robots.txt": "public",
  "/uploads/*": "public",
  "/brand/favicon.svg": "public",
  "/brand/share-card": "public",
  "/healthz": "public",
  "/*": "public",

  // Subscription management: the forms are public; links from mail carry signed tokens.
  "/subscription/preferences": "public",
  "/subscription/unsubscribe": "public",
  "/subscription/confirm/:token": "signed-link",
  "/subscription/one-click/:token": "signed-link",
  "/preferences": "signed-link",
  "/preferences/:token": "signed-link",
  "/preferences/:token/data.json": "signed-link",
  "/unsubscribe": "signed-link",
  "/t/o/:token": "signed-link",
  "/t/c/:token": "signed-link",

  // Signing in, and the first super admin's one-time setup link.
  "/login": "public",
  "/unauthorized": "public",
  "/admin/login": "public",
  "/admin/login/two-factor": "public",
  "/admin/forgot-password": "public",
  "/admin/reset-password/:token": "signed-link",
  "/admin/accept-invitation/:token": "signed-link",
  "/admin/account": "staff",
  "/admin/logout": "public",
  "/admin/setup": "signed-link",

  // The admin of this site's tenant.
  "/admin/cms": "staff",
  "/admin/dashboard": "tenant-staff",
  "/admin/messages": "tenant-staff",
  "/admin/subscribers": "tenant-staff",
  "/admin/subscribers/export.csv": "tenant-staff",
  "/admin/outbox": "tenant-staff",
  "/admin/outbox/:id": "tenant-staff",
  "/admin/newsletter/new": "tenant-staff",
  "/admin/newsletter/edit/:id": "tenant-staff",
  "/admin/newsletter/import": "tenant-staff",
  "/admin/newsletter/import/:id": "tenant-staff",
  "/admin/newsletter/send/:id": "tenant-staff",
  "/admin/newsletter/preview/:id": "tenant-staff",
  "/admin/newsletter/social/:id": "tenant-staff",
  "/admin/newsletter/social/:id/pack.zip": "tenant-staff",
  "/admin/newsletter/social/:id/:image": "tenant-staff",
  "/admin/newsletter/assist/:id": "tenant-staff",
  "/admin/subscribers/new": "tenant-staff",
  "/admin/subscribers/imports": "tenant-staff",
  "/admin/subscribers/imports/:id": "tenant-staff",
  "/admin/subscribers/fields": "tenant-staff",
  "/admin/subscribers/:id": "tenant-staff",
  "/admin/subscribers/:id/export.json": "tenant-staff",
  "/admin/lists": "tenant-staff",
  "/admin/segments": "tenant-staff",
  "/admin/segments/:id": "tenant-staff",
  "/admin/lists/:id": "tenant-staff",
  "/admin/lists/:id/welcome/:step": "tenant-staff",
  "/admin/embed": "tenant-staff",
  "/admin/linkedin": "tenant-staff",
  "/admin/linkedin/callback": { GET: "tenant-staff" },
  "/admin/campaigns": "tenant-staff",
  "/admin/campaigns/:id": "tenant-staff",
  "/admin/campaigns/:id/edit": "tenant-staff",
  "/admin/campaigns/:id/recipients.csv": "tenant-staff",
  "/admin/uploads": "tenant-staff",
  "/admin/link-preview": "tenant-staff",
  "/admin/comments/:id": "tenant-staff",
  "/test/functions": "tenant-staff",

  // Across tenants.
  "/admin/users": "super-admin",
  "/admin/api-tokens": "super-admin",
  "/admin/jobs": "super-admin",
  "/admin/tenants": "tenant-manager",
  "/admin/tenants/:id": "tenant-manager",

  // JSON APIs (SPEC §7, §8).
  "/api/openapi.json": "api-public",
  "/api/auth/verify": { GET: "api-public" },
  // Each function decides who may call it (anonymous sign-up, staff for the rest): server/api/functions.ts.
  "/api/functions/:name": { POST: "api-public" },
  "/api/webhooks/mailerlite/:tenantId": { POST: "signed-request" },
  // A Prometheus scraper with METRICS_TOKEN as its bearer token (404 when none is set).
  "/metrics": { GET: "signed-request" },
  "/api/tenants": { GET: "api-staff", POST: "api-super-admin" },
  "/api/tenants/domain/:domain": { GET: "api-public" },
  "/api/tenants/:id": { GET: "api-public", PUT: "api-super-admin", DELETE: "api-super-admin" },
  "/api/tenants/:id/branding": { PATCH: "api-super-admin" },
  "/api/tenants/:id/email-templates": { PATCH: "api-super-admin" },
  "/api/tenants/:id/email-groups": { GET: "api-public" },
  "/api/tenants/:id/limits": { GET: "api-super-admin", PATCH: "api-super-admin" },
};

/** The access a request needs: undefined when the route answers this method itself (405). */
/** React Router joins route paths without the leading slash ("admin/users"); keys have it. */
export function routeKey(pattern: string): string {
  return pattern.startsWith("/") ? pattern : `/${pattern}`;
}

export function accessFor(pattern: string, method: string): Access | undefined | null {
  const declared = ROUTE_ACCESS[routeKey(pattern)];
  if (declared === undefined) return null;
  if (typeof declared === "string") return declared;
  return declared[(method === "HEAD" ? "GET" : method) as HttpMethod];
}
