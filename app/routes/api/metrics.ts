import { scopeOf } from "../../../server/http/context";
import { metricsTokenMatches, renderMetrics } from "../../../server/metrics";
import type { Route } from "./+types/metrics";

/**
 * /metrics for Prometheus (README, "Watching it run"): only with METRICS_TOKEN set, and only for
 * a scraper that sends it as `Authorization: Bearer …`. Unset, the route is not there (404).
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const token = scopeOf(context).env.METRICS_TOKEN;
  if (!token) return new Response("Not found\n", { status: 404, headers: plainText });
  if (!metricsTokenMatches(request.headers.get("authorization"), token)) {
    return new Response("Unauthorized\n", {
      status: 401,
      headers: { ...plainText, "WWW-Authenticate": 'Bearer realm="metrics"' },
    });
  }
  const { body, contentType } = await renderMetrics();
  return new Response(body, {
    headers: { "Content-Type": contentType, "Cache-Control": "no-store" },
  });
}

const plainText = { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" };
