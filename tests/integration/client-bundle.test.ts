import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The build's browser half must hold no server code (the client build also refuses it: see
// vite.config.ts). Markers are the long string literals found only under server/ (not in app/ or
// shared/): minifiers rename identifiers but keep strings, so a server module in the bundle shows
// by them.
const root = path.resolve(import.meta.dirname, "../..");

function filesUnder(dir: string, pattern: RegExp): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((file) => pattern.test(file))
    .map((file) => path.join(dir, file));
}

const sources = (dir: string) => filesUnder(path.join(root, dir), /(?<!\.test)\.tsx?$/);

function serverMarkers(): Map<string, string> {
  const markers = new Map<string, string>();
  for (const file of sources("server")) {
    const source = readFileSync(file, "utf8");
    for (const match of source.matchAll(/["`]((?:[^"`$\\\n]|\\.){24,})["`]/g)) {
      markers.set(match[1], path.relative(root, file));
    }
  }
  const browserSide = [...sources("app"), ...sources("shared")]
    .map((file) => readFileSync(file, "utf8"))
    .join("\n");
  for (const marker of markers.keys()) if (browserSide.includes(marker)) markers.delete(marker);
  // TipTap's link extension sets the same rel value in the editor.
  markers.delete("noopener noreferrer nofollow");
  // A form's MIME type: React Router's client submits forms with it too.
  markers.delete("application/x-www-form-urlencoded");
  return markers;
}

const bundle = (dir: string) =>
  filesUnder(path.join(root, "build", dir), /\.m?js$/)
    .map((file) => readFileSync(file, "utf8"))
    .join("\n");

describe("the browser bundle", () => {
  const markers = serverMarkers();

  it("finds server code by its markers (they are in the server build)", () => {
    expect(markers.size).toBeGreaterThan(150);
    const server = bundle("server");
    const found = [...markers.keys()].filter((marker) => server.includes(marker));
    expect(found.length).toBeGreaterThan(markers.size / 2);
  });

  it("holds none of it, and none of the server packages", () => {
    const client = bundle("client");
    expect(client.length).toBeGreaterThan(100_000);
    const leaked = [...markers].filter(([marker]) => client.includes(marker));
    expect(leaked.map(([marker, file]) => `${file}: ${marker}`)).toEqual([]);
    for (const pkg of ["better-sqlite3", "nodemailer", "kysely", "smtp-server", "mailparser"]) {
      expect(client, pkg).not.toContain(`node_modules/${pkg}/`);
    }
  });
});
