import { existsSync } from "node:fs";
import path from "node:path";
// @ts-expect-error madge ships no types; the few calls below are all this file uses.
import madge from "madge";
import { beforeAll, describe, expect, it } from "vitest";
import { scaled } from "../tests/support/timing";

/*
 * Issue 34, target 4: an import graph that counts type-only imports too shows no circle in
 * server/, app/, cli/ and shared/. A type import is erased at build time, but a circle through one
 * still ties the modules together: none of them can be read, changed or moved without the others.
 * madge reads the graph (TypeScript's own resolution, with tsconfig.json's `~/` alias);
 * `npx madge --circular --extensions ts,tsx --ts-config tsconfig.json server app cli shared`
 * shows about the same from the command line (without the adjustments below, so with warnings).
 */

const root = path.resolve(import.meta.dirname, "..");

/** Imports that are not files of ours, and so are not in the graph (madge's "skipped"). */
function isOutsideTheTree(specifier: string): boolean {
  // Vite's virtual modules (the server build the host imports)
  if (specifier.startsWith("virtual:")) return true;
  // packages: their subpath exports (`@conform-to/zod/v4`) are not resolved, and no package is
  // followed anyway; `~/` is ours (tsconfig's alias of app/)
  return !specifier.startsWith(".") && !specifier.startsWith("/") && !specifier.startsWith("~/");
}

/** What madge is told: every import counts (types, dynamic), over a few facts of this build. */
const detective = {
  skipTypeImports: false,
  skipAsyncImports: false,
  onAfterFile({ dependencies }: { dependencies: string[] }) {
    const kept = dependencies.flatMap((specifier) => {
      // React Router's generated annotations of a route (`./+types/name`, made by `react-router
      // typegen`) are typed from the route module itself: every route would be a circle with its
      // own types. They hold no code of ours.
      if (/^\.\/\+types\//.test(specifier)) return [];
      // Vite's `?raw` and `?inline` imports (the inlined script, the stylesheet) are the file.
      return [specifier.replace(/\?(?:raw|inline|url)$/, "")];
    });
    dependencies.splice(0, dependencies.length, ...kept);
  },
};

interface Graph {
  obj(): Record<string, string[]>;
  circular(): string[][];
  skipped: string[];
}

/** A circle as one line, starting from its first module in sort order (madge starts anywhere). */
function circleLine(circle: string[]): string {
  const start = circle.indexOf([...circle].sort()[0] ?? "");
  return [...circle.slice(start), ...circle.slice(0, start)].join(" > ");
}

describe("the import graph, type imports counted", () => {
  let graph: Graph;
  beforeAll(async () => {
    graph = await madge(
      ["server", "app", "cli", "shared"].map((dir) => path.join(root, dir)),
      {
        baseDir: root,
        fileExtensions: ["ts", "tsx"],
        tsConfig: path.join(root, "tsconfig.json"),
        detectiveOptions: { ts: detective, tsx: detective, es6: { mixedImports: true } },
        // Only our modules are nodes (the stylesheet and the inlined script are leaves of no interest).
        dependencyFilter: (file: string) => /\.(?:tsx?|js)$/.test(file),
      },
    );
  }, scaled(120_000));

  it("resolves every import of ours (an unresolved one would hide its edges)", () => {
    expect(graph.skipped.filter((specifier) => !isOutsideTheTree(specifier))).toEqual([]);
    expect(existsSync(path.join(root, "app/lib/form-enhancements.js"))).toBe(true);
  });

  it("is read whole: type-only and dynamic imports are edges", () => {
    const edges = graph.obj();
    expect(Object.keys(edges).length).toBeGreaterThan(400);
    // type-only: `import type { Db } from "./db"`
    expect(edges["server/scope.ts"]).toContain("server/db/index.ts");
    // dynamic: `await import("../files/images")`
    expect(edges["server/newsletters/archive-imports.ts"]).toContain("server/files/images.ts");
    // a route's own server module
    expect(edges["app/routes/admin/lists.tsx"]).toContain("app/routes/admin/lists.server.ts");
    // Vite's `?raw` import of the inlined script
    expect(edges["app/root.tsx"]).toContain("app/lib/form-enhancements.js");
  });

  it("has no circle", () => {
    expect(graph.circular().map(circleLine)).toEqual([]);
  });

  it("keeps page parts and app/lib from importing route modules (a route's types go with its parts)", () => {
    const backwards = Object.entries(graph.obj()).flatMap(([file, targets]) =>
      /^app\/(?:components|lib)\//.test(file)
        ? targets.filter((target) => target.startsWith("app/routes/")).map((t) => `${file} > ${t}`)
        : [],
    );
    expect(backwards).toEqual([]);
  });

  it("finds a circle when there is one", async () => {
    const made: Graph = await madge({ a: ["b"], b: ["c"], c: ["a"], d: ["a"] });
    expect(made.circular().map(circleLine)).toEqual(["a > b > c"]);
  });
});
