import { readFileSync } from "node:fs";
import { resolve } from "node:path";

/**
 * Herald's version (package.json's), for the manifests of backups and tenant archives. Read from
 * the working directory, as server.js reads build/: Herald runs from its own folder. Not imported as
 * JSON: Playwright's and Node's loaders want an import attribute the bundler settings do not allow.
 */
export function heraldVersion(): string {
  try {
    const json = JSON.parse(readFileSync(resolve("package.json"), "utf8")) as { version?: unknown };
    return typeof json.version === "string" ? json.version : "unknown";
  } catch {
    return "unknown";
  }
}
