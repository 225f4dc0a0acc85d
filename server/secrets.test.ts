import { createHmac } from "node:crypto";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { Env } from "./env";
import { loadSessionSecret, signatureMatches } from "./secrets";

const logger = pino({ level: "silent" });
const env = (overrides: Partial<Env> = {}) => ({ NODE_ENV: "test", ...overrides }) as Env;

describe("loadSessionSecret", () => {
  it("uses SESSION_SECRET when set", () => {
    const secret = "s".repeat(40);
    expect(
      loadSessionSecret(env({ SESSION_SECRET: secret }), logger, join(tmpdir(), "unused")),
    ).toBe(secret);
  });

  it("generates a secret once, keeps it private on disk and reuses it", () => {
    const file = join(mkdtempSync(join(tmpdir(), "herald-secret-")), "data", "session-secret");
    const first = loadSessionSecret(env(), logger, file);
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(readFileSync(file, "utf8").trim()).toBe(first);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadSessionSecret(env(), logger, file)).toBe(first);
  });
});

describe("signatureMatches", () => {
  it("takes the signature as given out, and no other spelling of the same bytes", () => {
    const expected = createHmac("sha256", "k").update("body").digest();
    const text = expected.toString("base64url");
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const last = alphabet.indexOf(text.at(-1) ?? "A");
    // 32 bytes are 43 characters whose last carries 2 bits: its neighbour decodes the same.
    const respelt = `${text.slice(0, -1)}${alphabet[last ^ 1]}`;
    expect(Buffer.from(respelt, "base64url").equals(expected)).toBe(true);
    expect(signatureMatches(text, expected)).toBe(true);
    expect(signatureMatches(respelt, expected)).toBe(false);
    expect(signatureMatches(text.slice(0, -1), expected)).toBe(false);
  });
});
