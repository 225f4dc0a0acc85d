import { describe, expect, it } from "vitest";
import { brandingSchema, domainField, newTenantSchema, tenantSettingsSchema } from "./tenant";

const messages = (result: { error?: { issues: { message: string }[] } }) =>
  result.error?.issues.map((issue) => issue.message) ?? [];

describe("the tenant rules", () => {
  it("says a missing field is required, and a wrong type what it must be", () => {
    expect(messages(tenantSettingsSchema.safeParse({}))).toEqual(
      expect.arrayContaining(["Name is required", "Branding is required"]),
    );
    expect(messages(tenantSettingsSchema.safeParse({ name: 42 }))).toContain("Name must be text");
  });

  it("gives a blank id or domain one message, not also the format's", () => {
    const blank = newTenantSchema.safeParse({ id: " ", name: "Acme", domain: "" });
    expect(messages(blank)).toEqual(["Tenant id is required", "Domain is required"]);
  });

  it("takes any CSS colour, named ones too, and refuses the rest", () => {
    const colour = (primaryColor: string) =>
      brandingSchema.shape.primaryColor.safeParse(primaryColor).success;
    for (const good of ["#1b365d", "#abc", "rgb(27, 54, 93)", "hsl(210 50% 40%)", "navy"]) {
      expect(colour(good), good).toBe(true);
    }
    for (const bad of ["notacolour", "#12", "red; background: url(x)", ""]) {
      expect(colour(bad), bad).toBe(false);
    }
  });

  it("normalises a domain: case and the trailing dot of the fully qualified form", () => {
    expect(domainField.parse(" News.Example.COM. ")).toBe("news.example.com");
    expect(domainField.safeParse("https://news.example.com/x").success).toBe(false);
  });
});
