import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { Env } from "./env";
import { isSealed, loadSecretKey, SecretBox, SecretBoxError } from "./secret-box";

const KEY = "the current key, at least thirty-two characters";
const OLD = "the previous key, at least thirty-two characters";
const here = { table: "users", column: "totp_secret", row: "user-1" };

describe("secret box", () => {
  it("seals with a version, key id and fresh IV, and opens where it was sealed", () => {
    const box = new SecretBox(KEY);
    const a = box.seal("JBSWY3DPEHPK3PXP", here);
    const b = box.seal("JBSWY3DPEHPK3PXP", here);
    expect(a).toMatch(new RegExp(`^v1\\.${box.keyId}\\.[\\w-]{16}\\.[\\w-]+$`));
    expect(a).not.toBe(b);
    expect(a).not.toContain("JBSWY3DPEHPK3PXP");
    expect(isSealed(a)).toBe(true);
    expect(box.open(a, here)).toBe("JBSWY3DPEHPK3PXP");
    expect(box.open(b, here)).toBe("JBSWY3DPEHPK3PXP");
  });

  it("refuses a tampered value", () => {
    const box = new SecretBox(KEY);
    const sealed = box.seal("secret", here);
    const parts = sealed.split(".");
    const body = Buffer.from(parts[3] ?? "", "base64url");
    body[0] = (body[0] ?? 0) ^ 1;
    const tampered = [...parts.slice(0, 3), body.toString("base64url")].join(".");
    expect(() => box.open(tampered, here)).toThrow(SecretBoxError);
    const otherIv = [parts[0], parts[1], "AAAAAAAAAAAAAAAA", parts[3]].join(".");
    expect(() => box.open(otherIv, here)).toThrow(/does not open/);
  });

  it("refuses a value moved to another row, column or table", () => {
    const box = new SecretBox(KEY);
    const sealed = box.seal("secret", here);
    expect(() => box.open(sealed, { ...here, row: "user-2" })).toThrow(/does not open/);
    expect(() => box.open(sealed, { ...here, column: "other" })).toThrow(/does not open/);
    expect(() => box.open(sealed, { ...here, table: "webhook_secrets" })).toThrow(/does not open/);
  });

  it("opens values sealed under a previous key, and says which key is missing otherwise", () => {
    const old = new SecretBox(OLD);
    const sealed = old.seal("secret", here);
    const rotated = new SecretBox(KEY, [OLD]);
    expect(rotated.keyId).not.toBe(old.keyId);
    expect(rotated.open(sealed, here)).toBe("secret");
    expect(rotated.needsSealing(sealed)).toBe(true);
    expect(rotated.needsSealing(rotated.seal("secret", here))).toBe(false);
    expect(() => new SecretBox(KEY).open(sealed, here)).toThrow(
      new RegExp(`key id ${old.keyId}, which is neither HERALD_SECRET_KEY`),
    );
  });

  it("reads plaintext kept from before as it is, and wants it sealed", () => {
    const box = new SecretBox(KEY);
    expect(box.openStored("-----BEGIN PRIVATE KEY-----", here)).toBe("-----BEGIN PRIVATE KEY-----");
    expect(box.needsSealing("JBSWY3DPEHPK3PXP")).toBe(true);
    expect(() => box.open("JBSWY3DPEHPK3PXP", here)).toThrow(/not a sealed value/);
  });

  it("keyed digests match under the key that made them only", () => {
    const old = new SecretBox(OLD);
    const digest = old.digest("recovery-code", "user-1\ncode");
    expect(old.digestMatches(digest, "recovery-code", "user-1\ncode")).toBe(true);
    expect(old.digestMatches(digest, "recovery-code", "user-2\ncode")).toBe(false);
    expect(new SecretBox(KEY, [OLD]).digestMatches(digest, "recovery-code", "user-1\ncode")).toBe(
      true,
    );
    expect(new SecretBox(KEY).digestMatches(digest, "recovery-code", "user-1\ncode")).toBe(false);
  });
});

describe("loadSecretKey", () => {
  const env = (overrides: Partial<Env> = {}) => ({ NODE_ENV: "production", ...overrides }) as Env;

  it("uses HERALD_SECRET_KEY when set", () => {
    expect(
      loadSecretKey(env({ HERALD_SECRET_KEY: KEY }), pino({ level: "silent" }), "unused"),
    ).toBe(KEY);
  });

  it("generates a key once, keeps it owner-only in ./data, reuses it, and warns in production", () => {
    const file = join(mkdtempSync(join(tmpdir(), "herald-key-")), "data", "secret-key");
    const lines: string[] = [];
    const logger = pino({ level: "warn" }, { write: (line: string) => lines.push(line) });
    const first = loadSecretKey(env(), logger, file);
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(readFileSync(file, "utf8").trim()).toBe(first);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadSecretKey(env(), logger, file)).toBe(first);
    expect(lines.join("")).toContain("HERALD_SECRET_KEY is not set");
  });
});
