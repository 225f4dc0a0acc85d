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
 * A path the whole-path narrowing reads (decision 053): lower-case segments of the characters a
 * route path or a slug is written in, no empty segment (a trailing or double slash), no `.data`
 * (React Router strips it before matching). Anything else keeps its first segment's table.
 */
const PLAIN_PATH = /^(?:\/[a-z0-9_~-][a-z0-9._~-]*)+$/;

/** At most this many narrowed tables; past it, a path keeps its first segment's table. */
const MAX_NARROWED_TABLES = 256;

/** A route as the narrowing reads it: its full path's segments, or null when it can match any path. */
interface Candidate {
  id: string;
  parent: Candidate | undefined;
  segments: string[] | null;
}

/** The routes of `ids` (a first segment's table, which holds each route's ancestors) as candidates. */
function candidatesOf(routes: BuildRoutes, ids: Set<string>): Candidate[] {
  const paths = fullPaths(routes);
  const candidates = new Map<string, Candidate>();
  for (const id of ids) {
    const path = paths.get(id) ?? "";
    candidates.set(id, {
      id,
      parent: undefined,
      // An optional segment or a splat matches paths of other lengths: such a route is always kept.
      segments: /[*?]/.test(path) ? null : path === "" ? [] : path.toLowerCase().split("/"),
    });
  }
  for (const candidate of candidates.values()) {
    const parentId = routes[candidate.id]?.parentId;
    candidate.parent = parentId ? candidates.get(parentId) : undefined;
  }
  return [...candidates.values()];
}

/**
 * The ids of the routes whose full path can match a path of these segments — as many segments,
 * each static one the same (React Router matches without regard to case; the path is lower case)
 * — with their ancestors. Every other route's branch fails on some segment, so leaving it out
 * changes no match.
 */
function matchableIds(candidates: Candidate[], segments: string[]): string[] {
  const ids = new Set<string>();
  for (const candidate of candidates) {
    const own = candidate.segments;
    const fits =
      own === null ||
      (own.length === segments.length &&
        own.every((segment, index) => segment.startsWith(":") || segment === segments[index]));
    if (!fits) continue;
    for (let route: Candidate | undefined = candidate; route && !ids.has(route.id); ) {
      ids.add(route.id);
      route = route.parent;
    }
  }
  return candidates.map((candidate) => candidate.id).filter((id) => ids.has(id));
}

/**
 * A handler per first segment, made on first use from `create` (React Router's
 * createRequestHandler), and the whole build's handler for every other path. A plain path is
 * narrowed further, to the routes its whole path can match (`/newsletter/<slug>`: the root, the
 * article and the not-found page instead of the reading room's dozen), each such set its own
 * handler.
 */
export function routeTables<H>(
  build: ServerBuild,
  create: (build: ServerBuild) => H,
): (pathname: string) => H {
  const whole = create(build);
  const segments = staticFirstSegments(build.routes);
  const handlers = new Map<string, H>();
  const candidates = new Map<string, Candidate[]>();
  const handlerFor = (key: string, ids: () => Set<string>) => {
    let handler = handlers.get(key);
    if (!handler) {
      handler = create(buildWithRoutes(build, ids()));
      handlers.set(key, handler);
    }
    return handler;
  };
  const segmentTable = (segment: string) =>
    handlerFor(segment, () => routeIdsFor(build.routes, segment));
  return (pathname) => {
    const segment = requestSegment(pathname);
    if (segment === null || (segment !== "" && !segments.has(segment))) return whole;
    if (segment === "" || !PLAIN_PATH.test(pathname) || pathname.endsWith(".data")) {
      return segmentTable(segment);
    }
    let routes = candidates.get(segment);
    if (!routes) {
      routes = candidatesOf(build.routes, routeIdsFor(build.routes, segment));
      candidates.set(segment, routes);
    }
    const ids = matchableIds(routes, pathname.slice(1).split("/"));
    const key = `${segment}\n${ids.join("\n")}`;
    if (!handlers.has(key) && handlers.size >= MAX_NARROWED_TABLES) return segmentTable(segment);
    return handlerFor(key, () => new Set(ids));
  };
}
