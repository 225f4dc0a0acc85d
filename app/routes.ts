import { index, layout, prefix, type RouteConfig, route } from "@react-router/dev/routes";

export default [
  layout("routes/marketing/layout.tsx", [
    index("routes/marketing/home.tsx"),
    route("about", "routes/marketing/about.tsx"),
    route("services", "routes/marketing/services.tsx"),
    route("products", "routes/marketing/products.tsx"),
    route("contact", "routes/marketing/contact.tsx"),
    route("privacy", "routes/marketing/privacy.tsx"),
    route("terms", "routes/marketing/terms.tsx"),
    route("newsletter", "routes/newsletter/index.tsx"),
  ]),
  ...prefix("brand", [route("favicon.svg", "routes/api/favicon.ts")]),
  route("healthz", "routes/api/healthz.ts"),
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
