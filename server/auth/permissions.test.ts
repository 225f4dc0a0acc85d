import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  canManageTenant,
  grantedTenants,
  landingPathFor,
  parseProducts,
  type StaffUser,
  safeRedirectPath,
} from "./permissions";

const user = (role: string, products: Record<string, boolean> = {}): StaffUser => ({
  id: "u",
  email: "u@example.com",
  role,
  products,
  twoFactor: false,
  isSuperAdmin: role === "super_admin",
});

describe("permissions (SPEC §6)", () => {
  it("gives super admins everything and others only products set to exactly true", () => {
    expect(canManageTenant(user("super_admin"), "anything")).toBe(true);
    expect(canManageTenant(user("editor", { main: true }), "main")).toBe(true);
    expect(canManageTenant(user("editor", { main: true }), "keydiscovery")).toBe(false);
    expect(canManageTenant(null, "main")).toBe(false);
    expect(
      grantedTenants(user("editor", { keydiscovery: true }), ["main", "keydiscovery"]),
    ).toEqual(["keydiscovery"]);
  });

  it("only keeps products stored as exactly true", () => {
    expect(parseProducts('{"main":true,"kd":"true","x":1,"y":false}')).toEqual({ main: true });
    expect(parseProducts("not json")).toEqual({});
    expect(parseProducts("[true]")).toEqual({});
  });

  it("routes after sign-in: super admin → dashboard, keydiscovery → CMS, others → home", () => {
    expect(landingPathFor(user("super_admin"))).toBe("/admin/dashboard");
    expect(landingPathFor(user("editor", { keydiscovery: true }))).toBe("/admin/cms");
    expect(landingPathFor(user("editor", { main: true }))).toBe("/");
  });

  it.each([
    ["/admin/users", "/admin/users"],
    ["/newsletter?page=2#top", "/newsletter?page=2#top"],
    ["//evil.example", null],
    ["/\\evil.example", null],
    ["https://evil.example", null],
    ["javascript:alert(1)", null],
    ["", null],
    [null, null],
    // Issue 32, finding 2: checked after dot segments, backslashes, tabs and %2e are resolved.
    ["/.//evil.example/x", null],
    ["/admin/../..//evil.example", null],
    ["/%2e%2e//evil.example", null],
    ["/%2E%2E//evil.example", null],
    ["/.%2e//evil.example", null],
    ["/./\\evil.example", null],
    ["/..\\/evil.example", null],
    ["/\t/evil.example", null],
    ["/\n/evil.example", null],
    ["/\r\n/evil.example", null],
    ["/\\/evil.example", null],
    ["/ /evil.example", "/%20/evil.example"],
    ["/admin/../newsletter", "/newsletter"],
    ["/a/./b/../c?x=//y#//z", "/a/c?x=//y#//z"],
    ["/%2f%2fevil.example", "/%2f%2fevil.example"],
    ["/admin/%2e%2e/%2e%2e", "/"],
    ["/\u0000//evil.example", "/%00//evil.example"],
    ["/x\r\nSet-Cookie: a=b", "/xSet-Cookie:%20a=b"],
  ])("safeRedirectPath(%j) → %j", (target, expected) => {
    expect(safeRedirectPath(target)).toBe(expected);
  });

  it("never answers a target that a browser resolves off the site, whatever the input", () => {
    const piece = fc.constantFrom(
      "/",
      "\\",
      ".",
      "..",
      "%2e",
      "%2E",
      "%2f",
      "%5c",
      "\t",
      "\n",
      "\r",
      " ",
      "\u0000",
      "evil.example",
      "@",
      ":",
      "?",
      "#",
      "http:",
      "javascript:",
      "a",
      "%09",
      "\u3002",
    );
    const target = fc.oneof(
      fc.array(piece, { maxLength: 12 }).map((parts) => parts.join("")),
      fc.string({ maxLength: 40 }),
      fc.string({ maxLength: 40 }).map((rest) => `/${rest}`),
    );
    fc.assert(
      fc.property(target, (input) => {
        const path = safeRedirectPath(input);
        if (path === null) return;
        // What a browser does with the Location, from any page of the site.
        const landed = new URL(path, "https://site.example/admin/login?x=1");
        expect(landed.origin).toBe("https://site.example");
        expect(path).toMatch(/^\/(?![/\\])/);
        // No control character (a header split, a tab a browser drops) reaches the Location.
        expect([...path].every((char) => char > " " && char !== "\u007f")).toBe(true);
        // Already normal: checking it again changes nothing.
        expect(safeRedirectPath(path)).toBe(path);
      }),
      { numRuns: 5000 },
    );
  });
});
