import { ROUTE_ACCESS } from "../../app/route-access";
import routes from "../../app/routes";

/*
 * The routes of app/routes.ts as tests walk them: the URL patterns (the root middleware's
 * `pattern`), a concrete URL for each and the methods to try. The route-access test and the fuzz
 * test (tests/security/) share them.
 */

interface RouteEntry {
  path?: string;
  index?: boolean;
  children?: RouteEntry[];
}

/** The URL patterns of app/routes.ts, as React Router joins them (the middleware's `pattern`). */
function patternsOf(entries: RouteEntry[], base = ""): string[] {
  return entries.flatMap((entry) => {
    const path = entry.path === undefined ? base : `${base.replace(/\/$/, "")}/${entry.path}`;
    const own = entry.index || !entry.children?.length ? [path || "/"] : [];
    return [...own, ...patternsOf(entry.children ?? [], path)];
  });
}

export const routePatterns = patternsOf(routes as RouteEntry[]);

/** A concrete URL for a pattern: ids and tokens that match nothing, or `param` (already encoded). */
export function urlFor(pattern: string, param?: string): string {
  if (param !== undefined) return pattern.replace(/:[a-z]+/gi, param).replace("*", param);
  return pattern
    .replace(":name", "getSubscriber")
    .replace(":domain", "nowhere.example.com")
    .replace(/:[a-z]+/gi, "0")
    .replace("*", "nothing.png");
}

/** The methods to try: the declared ones, or GET and POST (loader and action). */
export function methodsOf(pattern: string): string[] {
  const declared = ROUTE_ACCESS[pattern];
  return typeof declared === "object" ? Object.keys(declared) : ["GET", "POST"];
}
