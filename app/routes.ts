import { index, layout, prefix, type RouteConfig, route } from "@react-router/dev/routes";

export default [
  // Pages whose anonymous HTML depends only on the tenant: the page cache may keep them.
  layout("routes/marketing/layout.tsx", [
    index("routes/marketing/home.tsx"),
    route("about", "routes/marketing/about.tsx"),
    route("services", "routes/marketing/services.tsx"),
    route("products", "routes/marketing/products.tsx"),
    route("contact", "routes/marketing/contact.tsx"),
    route("privacy", "routes/marketing/legal.tsx", { id: "privacy" }),
    route("terms", "routes/marketing/legal.tsx", { id: "terms" }),
    route("newsletter", "routes/newsletter/index.tsx"),
    route("newsletter/tag/:tag", "routes/newsletter/tag.tsx"),
    route("newsletter/archive/:year", "routes/newsletter/year.tsx"),
  ]),

  // The reading room: every load counts a view, so nothing here is cached.
  ...prefix("newsletter", [
    route("rss.xml", "routes/newsletter/rss.ts"),
    route("preview/:token", "routes/newsletter/preview.tsx"),
    route("search", "routes/newsletter/search.tsx"),
    route(":id", "routes/newsletter/detail.tsx"),
    route(":id/share-card", "routes/newsletter/share-card.ts"),
  ]),
  route("newsletter/subscribe", "routes/newsletter/subscribe.tsx"),
  // The sign-up form on other sites (issue 35): an iframe's page and the handler it and the snippet post to.
  route("embed/form", "routes/embed/form.ts"),
  route("embed/subscribe", "routes/embed/subscribe.ts"),
  route("newsletters", "routes/newsletter/archive-redirect.ts"),

  // Subscription management (SPEC §2 Subscription); the links in mail lead here.
  ...prefix("subscription", [
    route("preferences", "routes/subscription/preferences.tsx"),
    route("unsubscribe", "routes/subscription/unsubscribe.tsx"),
    route("confirm/:token", "routes/subscription/confirm.tsx"),
    route("one-click/:token", "routes/subscription/one-click.tsx"),
  ]),
  route("preferences", "routes/subscription/preferences-link.ts"),
  route("preferences/:token", "routes/subscription/preferences-token.tsx"),
  route("preferences/:token/data.json", "routes/subscription/preferences-data.ts"),
  route("unsubscribe", "routes/subscription/unsubscribe-link.ts"),

  route("sitemap.xml", "routes/api/sitemap.ts"),
  route("robots.txt", "routes/api/robots.ts"),
  route("test/functions", "routes/test/functions.tsx"),
  route("uploads/*", "routes/api/uploads.ts"),

  // The tenant manager's guard sends visitors here (SPEC §2 /login, /unauthorized).
  route("login", "routes/admin/login-redirect.ts"),
  route("unauthorized", "routes/admin/unauthorized.tsx"),
  ...prefix("admin", [
    route("login", "routes/admin/login.tsx"),
    route("login/two-factor", "routes/admin/login-two-factor.tsx"),
    route("forgot-password", "routes/admin/forgot-password.tsx"),
    route("reset-password/:token", "routes/admin/reset-password.tsx"),
    route("accept-invitation/:token", "routes/admin/accept-invitation.tsx"),
    route("account", "routes/admin/account.tsx"),
    route("logout", "routes/admin/logout.ts"),
    route("setup", "routes/admin/setup.tsx"),
    route("dashboard", "routes/admin/dashboard.tsx"),
    route("cms", "routes/admin/cms.tsx"),
    route("users", "routes/admin/users.tsx"),
    route("tenants", "routes/admin/tenants.tsx"),
    route("tenants/:id", "routes/admin/tenant.tsx"),
    route("api-tokens", "routes/admin/api-tokens.tsx"),
    route("messages", "routes/admin/messages.tsx"),
    route("subscribers", "routes/admin/subscribers.tsx"),
    route("lists", "routes/admin/lists.tsx"),
    route("lists/:id", "routes/admin/list.tsx"),
    route("lists/:id/welcome/:step", "routes/admin/welcome-step.tsx"),
    route("embed", "routes/admin/embed.tsx"),
    route("segments", "routes/admin/segments.tsx"),
    route("segments/:id", "routes/admin/segment.tsx"),
    route("subscribers/export.csv", "routes/admin/subscribers-export.ts"),
    route("subscribers/new", "routes/admin/subscriber-new.tsx"),
    route("subscribers/imports", "routes/admin/subscriber-imports.tsx"),
    route("subscribers/imports/:id", "routes/admin/subscriber-import.tsx"),
    route("subscribers/fields", "routes/admin/subscriber-fields.tsx"),
    route("subscribers/:id", "routes/admin/subscriber.tsx"),
    route("subscribers/:id/export.json", "routes/admin/subscriber-export.ts"),
    route("outbox", "routes/admin/outbox.tsx"),
    route("outbox/:id", "routes/admin/outbox-message.tsx"),
    route("newsletter/new", "routes/admin/newsletter-form.tsx", { id: "admin-newsletter-new" }),
    route("newsletter/edit/:id", "routes/admin/newsletter-form.tsx", {
      id: "admin-newsletter-edit",
    }),
    route("newsletter/import", "routes/admin/newsletter-imports.tsx"),
    route("newsletter/import/:id", "routes/admin/newsletter-import.tsx"),
    route("newsletter/send/:id", "routes/admin/newsletter-send.tsx"),
    route("newsletter/preview/:id", "routes/admin/newsletter-preview.tsx"),
    route("campaigns", "routes/admin/campaigns.tsx"),
    route("campaigns/:id", "routes/admin/campaign.tsx"),
    route("campaigns/:id/edit", "routes/admin/campaign-edit.tsx"),
    route("campaigns/:id/recipients.csv", "routes/admin/campaign-recipients-export.ts"),
    route("uploads", "routes/admin/uploads.ts"),
    route("comments/:id", "routes/admin/comment-moderation.ts"),
  ]),

  ...prefix("brand", [
    route("favicon.svg", "routes/api/favicon.ts"),
    route("share-card", "routes/api/share-card.ts"),
  ]),
  // Campaign tracking: the open pixel and click redirects in campaign mail.
  route("t/o/:token", "routes/api/track-open.ts"),
  route("t/c/:token", "routes/api/track-click.ts"),
  route("api/functions/:name", "routes/api/functions.ts"),
  route("api/webhooks/mailerlite/:tenantId", "routes/api/mailerlite-webhook.ts"),
  // The tenant API (SPEC §7), JSON in and out; see /api/openapi.json.
  ...prefix("api", [
    route("auth/verify", "routes/api/auth-verify.ts"),
    route("openapi.json", "routes/api/openapi.ts"),
    route("tenants", "routes/api/tenants/index.ts"),
    route("tenants/domain/:domain", "routes/api/tenants/by-domain.ts"),
    route("tenants/:id", "routes/api/tenants/tenant.ts"),
    route("tenants/:id/branding", "routes/api/tenants/branding.ts"),
    route("tenants/:id/email-templates", "routes/api/tenants/email-templates.ts"),
    route("tenants/:id/email-groups", "routes/api/tenants/email-groups.ts"),
  ]),
  route("healthz", "routes/api/healthz.ts"),
  // Prometheus' scrape, behind METRICS_TOKEN (server/metrics.ts).
  route("metrics", "routes/api/metrics.ts"),
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
