// What build/ was made from: a hash of the sources, written after each `npm run build` and
// compared by the test setup (tests/support/global-setup.ts), which rebuilds a build older than
// the tree instead of testing yesterday's server (issue 34, target 6).
//
//   node scripts/build-stamp.mjs        writes build/source-stamp.json for the current sources
//
// A content hash, not modification times: a checkout or a branch switch touches every file it
// writes, and an editor may save a file unchanged.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The folders and files the build is made from. */
export const BUILD_SOURCES = [
  "app",
  "server",
  "shared",
  "cli",
  "package.json",
  "package-lock.json",
  "vite.config.ts",
  "react-router.config.ts",
  "tsconfig.json",
];

export const STAMP_FILE = "build/source-stamp.json";

/** Tests are not built: changing one leaves the build current. */
function isBuilt(path) {
  return !/\.test\.tsx?$/.test(path) && !path.split("/").includes("__snapshots__");
}

/** A hash of the paths and contents of the build's sources under `root`. */
export function sourceHash(root) {
  const hash = createHash("sha256");
  for (const file of sourceFiles(root)) {
    hash.update(file);
    hash.update("\0");
    hash.update(readFileSync(join(root, file)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

/** The build's source files under `root`: sorted paths relative to it, with "/" separators. */
export function sourceFiles(root) {
  const files = [];
  for (const source of BUILD_SOURCES) {
    const path = join(root, source);
    if (!existsSync(path)) continue;
    let entries;
    try {
      entries = readdirSync(path, { withFileTypes: true, recursive: true });
    } catch (error) {
      if (error.code !== "ENOTDIR") throw error;
      files.push(source);
      continue;
    }
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const file = relative(root, join(entry.parentPath ?? entry.path, entry.name))
        .split(sep)
        .join("/");
      if (isBuilt(file)) files.push(file);
    }
  }
  return files.sort();
}

/** Records that build/ under `root` was made from the sources as they are now. */
export function writeStamp(root) {
  const stamp = { sourceHash: sourceHash(root), writtenAt: new Date().toISOString() };
  writeFileSync(join(root, STAMP_FILE), `${JSON.stringify(stamp, null, 2)}\n`);
  return stamp;
}

/**
 * Whether build/ under `root` can be tested: "fresh", or why not — "missing" (no server build),
 * "unstamped" (built before stamps, or by hand), "stale" (the sources changed since).
 */
export function buildState(root) {
  if (!existsSync(join(root, "build/server/index.js"))) return "missing";
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(root, STAMP_FILE), "utf8"));
  } catch {
    return "unstamped";
  }
  return stamp.sourceHash === sourceHash(root) ? "fresh" : "stale";
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeStamp(process.cwd());
}
