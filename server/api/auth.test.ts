import { describe, expect, it } from "vitest";
import { FUNCTIONS_ROUTE, READ_ONLY_FUNCTIONS, requiredTokenScope } from "./auth";
import { FUNCTION_NAMES } from "./functions";

const route = (pattern: string, params: Record<string, string> = {}) => ({
  pattern,
  params,
  url: new URL(`http://localhost${pattern}`),
});

describe("the scope an API token needs", () => {
  it("is read for the tenant API's GETs and tenants:write for its other methods", () => {
    expect(requiredTokenScope("GET", route("/api/tenants"))).toBe("read");
    expect(requiredTokenScope("HEAD", route("/api/tenants/:id", { id: "main" }))).toBe("read");
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      expect(requiredTokenScope(method, route("/api/tenants/:id", { id: "main" }))).toBe(
        "tenants:write",
      );
    }
  });

  it("is read for the functions that only read and functions for the rest", () => {
    for (const name of READ_ONLY_FUNCTIONS) expect(FUNCTION_NAMES).toContain(name);
    const writers = FUNCTION_NAMES.filter((name) => !READ_ONLY_FUNCTIONS.has(name));
    expect(writers.sort()).toEqual([
      "addSubscriber",
      "completeNewsletterSignup",
      "createAndSendCampaign",
      "sendEmail",
    ]);
    for (const name of FUNCTION_NAMES) {
      expect(requiredTokenScope("POST", route(FUNCTIONS_ROUTE, { name }))).toBe(
        READ_ONLY_FUNCTIONS.has(name) ? "read" : "functions",
      );
    }
  });

  it("takes the function from the matched route: an unknown or odd name needs the functions scope", () => {
    for (const name of ["", "GETALLGROUPS", "getAllGroups/", "constructor", "__proto__"]) {
      expect(requiredTokenScope("POST", route(FUNCTIONS_ROUTE, { name }))).toBe("functions");
    }
  });
});
