import { matchRoutes, type RouteObject, type ServerBuild } from "react-router";
import { describe, expect, it } from "vitest";
import routes from "../../app/routes";
import { buildWithRoutes, requestSegment, routeIdsFor, routeTables } from "./route-tables";

/** app/routes.ts as the build's flat table: id, parent, path, index. */
interface ConfigEntry {
  id?: string;
  file: string;
  path?: string;
  index?: boolean;
  caseSensitive?: boolean;
  children?: ConfigEntry[];
}
type BuildRoutes = ServerBuild["routes"];

function flatten(entries: ConfigEntry[], parentId: string, table: BuildRoutes): BuildRoutes {
  for (const entry of entries) {
    const id = entry.id ?? entry.file.replace(/\.[jt]sx?$/, "");
    table[id] = {
      id,
      parentId,
      path: entry.path,
      index: entry.index,
      caseSensitive: entry.caseSensitive,
      module: {} as never,
    };
    flatten(entry.children ?? [], id, table);
  }
  return table;
}

const table = flatten(routes as ConfigEntry[], "root", {
  root: { id: "root", path: "", module: {} as never },
});

/** The nested route objects React Router matches, made of the table's routes in `ids`. */
function tree(ids: Set<string>, parentId?: string): RouteObject[] {
  return Object.values(table)
    .filter((route) => route && ids.has(route.id) && route.parentId === parentId)
    .map((route) => {
      const children = tree(ids, route?.id);
      return route?.index
        ? { id: route.id, index: true, path: route.path }
        : { id: route?.id, path: route?.path, caseSensitive: route?.caseSensitive, children };
    });
}

const allIds = new Set(Object.keys(table));
/** The parts of a build the route tables read: the server's table and the assets manifest. */
const build = {
  routes: table,
  assets: { routes: Object.fromEntries([...allIds].map((id) => [id, { id }])) },
} as unknown as ServerBuild;
const whole = tree(allIds);
const matched = (objects: RouteObject[], path: string) =>
  (matchRoutes(objects, path) ?? []).map((match) => match.route.id);

/** A concrete path for each route, and spellings React Router reads in its own way. */
function samplePaths(): { ordinary: string[]; all: string[] } {
  const ordinary = new Set<string>();
  const paths = new Set<string>(["/", "//", "/x", "/nothing/at/all", "/_.data", "/about.data"]);
  for (const match of Object.values(table)) {
    if (!match) continue;
    let path = "";
    for (
      let route: BuildRoutes[string] = match;
      route;
      route = route.parentId ? table[route.parentId] : undefined
    ) {
      if (route.path) path = `/${route.path}${path}`;
    }
    const concrete = path.replace(/:[a-z]+\??/gi, "7").replace("*", "a/b.png") || "/";
    paths.add(concrete);
    // A value that is also another route's static segment, and a data request of each page.
    for (const word of ["search", "tag", "edit", "new"]) {
      paths.add(path.replace(/:[a-z]+\??/gi, word).replace("*", word) || "/");
    }
    paths.add(`${concrete}.data`);
    if (!/^\/[:*]/.test(path)) ordinary.add(concrete);
    paths.add(`${concrete}/`);
    paths.add(`${concrete}/extra`);
    paths.add(concrete.toUpperCase());
    paths.add(concrete.replace(/^\/(.)/, (_, c: string) => `/%${c.charCodeAt(0).toString(16)}`));
    paths.add(`/${concrete}`);
  }
  return { ordinary: [...ordinary], all: [...paths] };
}

describe("route tables by first path segment (decision 036) and by whole path (decision 053)", () => {
  const tableFor = routeTables(build, (table) => table);

  it("match every path as the whole table does", () => {
    const { ordinary, all } = samplePaths();
    expect(all.length).toBeGreaterThan(300);
    const trees = new Map<ServerBuild, RouteObject[]>();
    for (const path of all) {
      const narrowed = tableFor(path);
      let objects = trees.get(narrowed);
      if (!objects) {
        objects = tree(new Set(Object.keys(narrowed.routes)));
        trees.set(narrowed, objects);
      }
      expect(matched(objects, path), path).toEqual(matched(whole, path));
    }
    // Each route's own path is looked up in a table smaller than the whole one.
    for (const path of ordinary) {
      expect(Object.keys(tableFor(path).routes).length, path).toBeLessThan(allIds.size);
    }
    // The reading room's pages are matched among the reading room's routes alone, an article's
    // among the routes its whole path can match (decision 053).
    expect(Object.keys(tableFor("/newsletter").routes).length).toBeLessThan(20);
    expect(Object.keys(tableFor("/newsletter/launch-day").routes).sort()).toEqual([
      "root",
      "routes/newsletter/detail",
      "routes/not-found",
    ]);
    expect(Object.keys(tableFor("/newsletter/search").routes)).toContain(
      "routes/newsletter/search",
    );
  });

  it("give the home page only the routes that can match /", () => {
    const ids = routeIdsFor(table, "");
    expect(ids.size).toBeLessThan(8);
    expect(matched(tree(ids), "/")).toEqual(matched(whole, "/"));
  });

  it("hand a spelling that is not a route's first segment as written to the whole table", () => {
    for (const path of ["/ADMIN/login", "/%61dmin/login", "//admin/login", "/Admin/dashboard"]) {
      expect(Object.keys(tableFor(path).routes).length, path).toBe(allIds.size);
    }
    expect(requestSegment("/admin/login")).toBe("admin");
    expect(requestSegment("//admin")).toBeNull();
  });

  it("keep the assets manifest in step with the server's table", () => {
    const narrowed = buildWithRoutes(build, routeIdsFor(table, "newsletter"));
    expect(Object.keys(narrowed.assets.routes).sort()).toEqual(Object.keys(narrowed.routes).sort());
    expect(Object.keys(narrowed.routes)).toContain("root");
    expect(Object.keys(narrowed.routes).some((id) => id.includes("admin"))).toBe(false);
  });
});
