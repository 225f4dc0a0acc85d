import { describe, expect, it } from "vitest";
import { signToken, verifyToken } from "./tokens";

const SECRET = "a".repeat(40);
const payload = { purpose: "unsubscribe" as const, tenantId: "main", subscriberId: 42 };

describe("signed link tokens", () => {
  it("round-trips a payload", () => {
    expect(verifyToken(SECRET, signToken(SECRET, payload), "unsubscribe")).toEqual(payload);
  });

  it("refuses a token for another purpose, a tampered payload, another secret and garbage", () => {
    const token = signToken(SECRET, payload);
    expect(verifyToken(SECRET, token, "preferences")).toBeNull();
    const [body, mac] = token.split(".");
    const forged = Buffer.from(JSON.stringify({ ...payload, subscriberId: 43 })).toString(
      "base64url",
    );
    expect(verifyToken(SECRET, `${forged}.${mac}`, "unsubscribe")).toBeNull();
    expect(verifyToken("b".repeat(40), token, "unsubscribe")).toBeNull();
    expect(verifyToken(SECRET, `${body}.`, "unsubscribe")).toBeNull();
    expect(verifyToken(SECRET, "not-a-token", "unsubscribe")).toBeNull();
    expect(verifyToken(SECRET, null, "unsubscribe")).toBeNull();
  });

  it("refuses an expired token", () => {
    const token = signToken(SECRET, { ...payload, expiresAt: 1_000 });
    expect(verifyToken(SECRET, token, "unsubscribe", 999)).not.toBeNull();
    expect(verifyToken(SECRET, token, "unsubscribe", 1_001)).toBeNull();
  });
});
