import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/*
 * Issue 34, target 5: packages most installs never use are imported where they are first needed
 * (`await import(…)`, server/lazy.ts), never by a static import that the server build would load
 * at every start. Type-only imports are erased and may stay.
 */
const LOADED_ON_FIRST_USE = [
  "@aws-sdk/client-s3", // S3_BUCKET
  "ioredis", // REDIS_URL
  "mailparser", // bounce reports (BOUNCE_SMTP_PORT)
  "otpauth", // two-factor pages and actions
  "papaparse", // CSV imports and exports
  "pg", // PostgreSQL DATABASE_URL
  "prom-client", // METRICS_TOKEN / METRICS_PORT
  "qrcode", // two-factor enrolment
  "sharp", // uploads and share cards
  "smtp-server", // BOUNCE_SMTP_PORT
];

const root = path.resolve(import.meta.dirname, "..");

function runtimeSources(): string[] {
  return ["app", "server", "shared", "cli"].flatMap((dir) =>
    readdirSync(path.join(root, dir), { recursive: true, encoding: "utf8" })
      .filter((file) => /\.tsx?$/.test(file) && !/\.test\.tsx?$/.test(file))
      .map((file) => path.join(dir, file)),
  );
}

/** The packages `source` imports statically for their values (type-only imports left out). */
function staticValueImports(source: string): string[] {
  const found: string[] = [];
  const fromClause = /^\s*(?:import|export)\s+(?!type\b)([\s\S]*?)\s+from\s+["']([^"']+)["']/gm;
  for (const [, clause = "", specifier = ""] of source.matchAll(fromClause)) {
    const names = clause.trim().startsWith("{")
      ? clause.replace(/[{}\s]/g, "").split(",")
      : [clause];
    if (names.filter(Boolean).every((name) => name.startsWith("type"))) continue;
    found.push(specifier);
  }
  for (const [, specifier = ""] of source.matchAll(/^\s*import\s+["']([^"']+)["']/gm)) {
    found.push(specifier);
  }
  return found;
}

describe("a light start", () => {
  it("finds a static value import (the check itself)", () => {
    expect(
      staticValueImports('import pg from "pg";\nimport type { Redis } from "ioredis";'),
    ).toEqual(["pg"]);
    expect(staticValueImports('import { type A, type B } from "sharp";')).toEqual([]);
    expect(staticValueImports('import { Secret, type TOTP } from "otpauth";')).toEqual(["otpauth"]);
  });

  it("imports the optional packages only where they are first used", () => {
    const offending: string[] = [];
    for (const file of [...runtimeSources(), "server.js"]) {
      const source = readFileSync(path.join(root, file), "utf8");
      for (const specifier of staticValueImports(source)) {
        const pkg = LOADED_ON_FIRST_USE.find(
          (name) => specifier === name || specifier.startsWith(`${name}/`),
        );
        if (pkg) offending.push(`${file}: ${specifier}`);
      }
    }
    expect(offending).toEqual([]);
  });
});
