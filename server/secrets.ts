import { randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Env } from "./env";
import type { Logger } from "./logger";

export const SECRET_FILE = "data/session-secret";

/**
 * The secret that signs tokens and links (DESIGN.md §9): SESSION_SECRET, else one generated on
 * first start and kept in ./data. Instances sharing a database must share it, hence the warning.
 */
export function loadSessionSecret(env: Env, logger: Logger, file = SECRET_FILE): string {
  if (env.SESSION_SECRET) return env.SESSION_SECRET;
  const path = resolve(file);
  if (existsSync(path)) {
    const stored = readFileSync(path, "utf8").trim();
    if (stored.length >= 32) return stored;
  }
  const secret = randomBytes(32).toString("base64url");
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${secret}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  if (env.NODE_ENV === "production") {
    logger.warn(
      { file: path },
      "SESSION_SECRET is not set: generated one in ./data. Instances that share a database must share this secret.",
    );
  }
  return secret;
}

/**
 * Whether a base64url signature from a link is `expected`, compared as text in constant time.
 * Decoding first would accept other spellings of the last character (base64 ignores its low bits).
 */
export function signatureMatches(given: string, expected: Buffer): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected.toString("base64url"));
  return a.length === b.length && timingSafeEqual(a, b);
}
