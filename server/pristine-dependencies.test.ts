import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";

/*
 * Issue 34, target 1: node_modules is what `npm ci` installs, nothing edited. The framework
 * packages' files are compared byte for byte with their published tarballs, found by the
 * `integrity` of package-lock.json in npm's content-addressed cache (which `npm ci` fills): no
 * network, and a tarball that does not hash to the lockfile's integrity is refused.
 */

const root = path.resolve(import.meta.dirname, "..");
const FRAMEWORK = /^(react-router|@react-router\/[^/]+|react|react-dom)$/;
/** Lifecycle scripts npm runs in the project itself on install: where a patcher would hook in. */
const INSTALL_HOOKS = ["preinstall", "install", "postinstall", "prepare"];

interface LockEntry {
  version?: string;
  integrity?: string;
  link?: boolean;
}

const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
};
const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8")) as {
  packages: Record<string, LockEntry>;
};

/** The lockfile's framework packages, at any depth: [install path, entry]. */
function frameworkPackages(): [string, LockEntry][] {
  return Object.entries(lock.packages).filter(([location, entry]) => {
    const name = location.split("node_modules/").at(-1) ?? "";
    return location !== "" && FRAMEWORK.test(name) && !entry.link;
  });
}

/** The published tarball with this integrity ("sha512-…"), from npm's cache (cacache's layout). */
function cachedTarball(integrity: string): Buffer {
  const [algorithm = "", digest = ""] = integrity.split(/-(.*)/s);
  const hex = Buffer.from(digest, "base64").toString("hex");
  const cache = process.env.npm_config_cache ?? path.join(os.homedir(), ".npm");
  const file = path.join(
    cache,
    "_cacache",
    "content-v2",
    algorithm,
    hex.slice(0, 2),
    hex.slice(2, 4),
    hex.slice(4),
  );
  if (!existsSync(file)) {
    throw new Error(`no tarball with ${integrity} in npm's cache (${file}): run npm ci`);
  }
  const bytes = readFileSync(file);
  expect(createHash(algorithm).update(bytes).digest("base64"), file).toBe(digest);
  return bytes;
}

/** A tarball's regular files by path, without npm's leading "package/" (ustar, pax and GNU names). */
function tarFiles(tgz: Buffer): Map<string, Buffer> {
  const tar = gunzipSync(tgz);
  const files = new Map<string, Buffer>();
  const text = (from: number, length: number) =>
    tar.toString("utf8", from, from + length).replace(/\0.*$/s, "");
  let longName: string | null = null;
  for (let at = 0; at + 512 <= tar.length; ) {
    if (tar[at] === 0) break; // the two zero blocks that end the archive
    const size = Number.parseInt(text(at + 124, 12).trim() || "0", 8);
    const type = String.fromCharCode(tar[at + 156] ?? 48);
    const prefix = text(at + 345, 155);
    const name = longName ?? (prefix ? `${prefix}/${text(at, 100)}` : text(at, 100));
    const body = tar.subarray(at + 512, at + 512 + size);
    longName = null;
    if (type === "x") {
      longName = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString("utf8"))?.[1] ?? null;
    } else if (type === "L") {
      longName = body.toString("utf8").replace(/\0.*$/s, "");
    } else if (type === "0" || type === "\0") {
      files.set(name.replace(/^[^/]+\//, ""), body);
    }
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

/** Every file under `dir`, relative to it, with "/" separators. */
function installedFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep))
    .map((parts) => parts.join("/"))
    .filter((file) => !file.startsWith("node_modules/")); // its own dependencies: checked apart
}

describe("node_modules as npm ci installs it", () => {
  it("has nothing that edits it after install: no patches/, no patcher, no install hooks", () => {
    expect(existsSync(path.join(root, "patches"))).toBe(false);
    const dependencies = { ...manifest.dependencies, ...manifest.devDependencies };
    expect(Object.keys(dependencies).filter((name) => /patch/i.test(name))).toEqual([]);
    const hooks = Object.keys(manifest.scripts ?? {}).filter((name) =>
      INSTALL_HOOKS.includes(name),
    );
    expect(hooks).toEqual([]);
  });

  it("holds React Router's and React's packages byte for byte as published", () => {
    const packages = frameworkPackages();
    // The three React Router packages, React and React DOM at least.
    expect(packages.length).toBeGreaterThanOrEqual(5);
    for (const [location, entry] of packages) {
      expect(entry.integrity, `${location} has no integrity in package-lock.json`).toBeTruthy();
      const published = tarFiles(cachedTarball(entry.integrity as string));
      const dir = path.join(root, location);
      const installed = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
      expect(installed.version, location).toBe(entry.version);
      expect(installedFiles(dir).sort(), `${location}: its files`).toEqual(
        [...published.keys()].sort(),
      );
      const changed = [...published]
        .filter(([file, bytes]) => !readFileSync(path.join(dir, file)).equals(bytes))
        .map(([file]) => `${location}/${file}`);
      expect(changed, "files that differ from the published tarball").toEqual([]);
    }
  });
});
