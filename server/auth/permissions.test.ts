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
  ])("safeRedirectPath(%s) → %s", (target, expected) => {
    expect(safeRedirectPath(target)).toBe(expected);
  });
});
