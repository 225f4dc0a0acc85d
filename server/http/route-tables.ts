import type { ServerBuild } from "react-router";

/**
 * React Router's request handler, one per first path segment (decision 036).
 *
 * Unpatched, React Router does work on every rendered page in proportion to the number of routes
 * in the build: it builds the whole route tree for `<ServerRouter>` and the static router, and
 * tries the ranked branches one by one, twice, until one matches. With ~90 routes that was about
 * a third of a page's CPU. A path can only match a route whose path starts with the same static
 * segment, or with a dynamic one (`:id`, `*`, optional), or the routes with no path (the root, the
 * layouts, an index). So each static first segment gets its own build holding just those routes,
 * and its own `createRequestHandler`: the same matches, in the same order, over a few routes.
 *
 * A path whose first segment is not one of the routes' static first segments exactly as written
 * (a differently spelt `/ADMIN/…`, a percent-encoded `/%61dmin/…`, `//…`, `/x.data`) is handled
 * by the whole build, so nothing is decided on a spelling React Router would read otherwise.
 */

type BuildRoutes = ServerBuild["routes"];
type BuildRoute = NonNullable<BuildRoutes[string]>;

/** The static first segment of a route's full path; "" for no path; null when it can match anything. */
function firstSegment(path: string): string | null {
  const segment = path.replace(/^\/+/, "").split("/")[0] ?? "";
  return /[:*?]/.test(segment) ? null : segment;
}

/** Every route's full path: its ancestors' paths joined with its own. */
export function fullPaths(routes: BuildRoutes): Map<string, string> {
  const paths = new Map<string, string>();
  const fullPath = (route: BuildRoute): string => {
    const known = paths.get(route.id);
    if (known !== undefined) return known;
    const parent = route.parentId ? routes[route.parentId] : undefined;
    const own = (route.path ?? "").replace(/^\/+|\/+$/g, "");
    const parentPath = parent ? fullPath(parent) : "";
    const joined = [parentPath, own].filter(Boolean).join("/");
    paths.set(route.id, joined);
    return joined;
  };
  for (const route of Object.values(routes)) if (route) fullPath(route);
  return paths;
}

/** The static first segments the routes start with ("" aside: the bare "/" is handled apart). */
export function staticFirstSegments(routes: BuildRoutes): Set<string> {
  const segments = new Set<string>();
  for (const path of fullPaths(routes).values()) {
    const segment = firstSegment(path);
    if (segment) segments.add(segment);
  }
  return segments;
}

/**
 * The ids of the routes a path starting with `segment` can match ("" for the path "/"): those
 * starting with it, those starting with a dynamic segment, and those without a path (which hold
 * the others, or match "/" only). A route's ancestors' paths are prefixes of its own, so they are
 * kept with it.
 */
export function routeIdsFor(routes: BuildRoutes, segment: string): Set<string> {
  const ids = new Set<string>();
  for (const [id, path] of fullPaths(routes)) {
    const first = firstSegment(path);
    if (path === "" || first === null || first === segment) ids.add(id);
  }
  return ids;
}

/** The build with only the routes of `ids`, in the server's table and in the assets manifest. */
export function buildWithRoutes(build: ServerBuild, ids: Set<string>): ServerBuild {
  const pick = <T>(record: Record<string, T>) =>
    Object.fromEntries(Object.entries(record).filter(([id]) => ids.has(id)));
  return {
    ...build,
    routes: pick(build.routes),
    assets: { ...build.assets, routes: pick(build.assets.routes) },
  };
}

/** The first segment a request's path is looked up by, or null for the whole build. */
export function requestSegment(pathname: string): string | null {
  if (pathname === "/") return "";
  const end = pathname.indexOf("/", 1);
  const segment = end === -1 ? pathname.slice(1) : pathname.slice(1, end);
  return segment === "" ? null : segment;
}

/**
 * A handler per first segment, made on first use from `create` (React Router's
 * createRequestHandler), and the whole build's handler for every other path.
 */
export function routeTables<H>(
  build: ServerBuild,
  create: (build: ServerBuild) => H,
): (pathname: string) => H {
  const whole = create(build);
  const segments = staticFirstSegments(build.routes);
  const handlers = new Map<string, H>();
  return (pathname) => {
    const segment = requestSegment(pathname);
    if (segment === null || (segment !== "" && !segments.has(segment))) return whole;
    let handler = handlers.get(segment);
    if (!handler) {
      handler = create(buildWithRoutes(build, routeIdsFor(build.routes, segment)));
      handlers.set(segment, handler);
    }
    return handler;
  };
}
