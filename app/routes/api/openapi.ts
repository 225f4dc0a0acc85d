import { FUNCTIONS } from "../../../server/api/functions";
import { openApiDocument } from "../../../server/api/openapi";
import type { Route } from "./+types/openapi";

let cached: string | undefined;

/** GET /api/openapi.json — the API's description, built once from the route schemas. */
export function loader(_: Route.LoaderArgs) {
  cached ??= JSON.stringify(
    openApiDocument(Object.entries(FUNCTIONS).map(([name, fn]) => ({ name, ...fn }))),
  );
  return new Response(cached, {
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-cache" },
  });
}
