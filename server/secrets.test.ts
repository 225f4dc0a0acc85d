import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { Env } from "./env";
import { loadSessionSecret } from "./secrets";

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
