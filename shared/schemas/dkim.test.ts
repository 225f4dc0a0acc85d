import { describe, expect, it } from "vitest";
import { defaultDkimSelector, dkimKeySchema, domainOfAddress } from "./dkim";

describe("DKIM key input", () => {
  const valid = { selector: " Herald2025 ", domain: "News.Example.COM.", algorithm: "rsa" };

  it("normalises a selector and a domain", () => {
    expect(dkimKeySchema.parse(valid)).toEqual({
      selector: "herald2025",
      domain: "news.example.com",
      algorithm: "rsa",
    });
  });

  it("holds a selector to one DNS label, with one message per problem", () => {
    const messages = (selector: string) =>
      dkimKeySchema.safeParse({ ...valid, selector }).error?.issues.map((issue) => issue.message);
    expect(messages("")).toEqual(["Selector is required"]);
    expect(messages("a b")).toEqual([
      "Selector may only use letters, digits and hyphens, and may not start or end with a hyphen",
    ]);
    expect(messages("a.b")).toHaveLength(1);
    expect(messages("edge-")).toHaveLength(1);
    expect(messages("x".repeat(64))).toEqual(["Selector must be at most 63 characters"]);
    expect(messages("x".repeat(63))).toBeUndefined();
  });

  it("knows RSA and Ed25519 only", () => {
    expect(dkimKeySchema.safeParse({ ...valid, algorithm: "ed25519" }).success).toBe(true);
    expect(dkimKeySchema.safeParse({ ...valid, algorithm: "dsa" }).error?.issues[0]?.message).toBe(
      "Key type must be RSA-2048 or Ed25519",
    );
  });

  it("defaults the selector to herald and the date, and to the time when that one is taken", () => {
    const now = new Date("2025-06-11T09:30:00Z");
    expect(defaultDkimSelector(now)).toBe("herald20250611");
    expect(defaultDkimSelector(now, "herald20250611")).toBe("herald202506110930");
    expect(domainOfAddress("News <newsletter@KeyDiscovery.com>".slice(7, -1))).toBe(
      "keydiscovery.com",
    );
  });
});
