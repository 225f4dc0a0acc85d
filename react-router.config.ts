import type { Config } from "@react-router/dev/config";

export default {
  ssr: true,
  // The whole route manifest goes to the browser as one cached asset (about 4 KB gzip), imported
  // by the pages that have scripts (staff's). "lazy" discovery instead put a partial manifest in
  // every such page, worked out per request (two more route matches and a JSON encoding, 2.5% of
  // the dashboard's CPU), and fetched the rest from /__manifest as links came into view.
  routeDiscovery: { mode: "initial" },
  future: {
    v8_middleware: true,
    v8_trailingSlashAwareDataRequests: true,
    // Handlers get the request itself, not two copies without `?index` and `?_routes`; they read
    // the location from their `url` argument (decision 034).
    v8_passThroughRequests: true,
  },
} satisfies Config;
