import { describe, expect, it } from "vitest";
import { READ_ONLY_FUNCTIONS, requiredTokenScope } from "./auth";
import { FUNCTION_NAMES } from "./functions";

const request = (method: string, path: string) =>
  new Request(`http://localhost${path}`, { method });

describe("the scope an API token needs", () => {
  it("is read for the tenant API's GETs and tenants:write for its other methods", () => {
    expect(requiredTokenScope(request("GET", "/api/tenants"))).toBe("read");
    expect(requiredTokenScope(request("GET", "/api/tenants/main/email-groups"))).toBe("read");
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      expect(requiredTokenScope(request(method, "/api/tenants/main"))).toBe("tenants:write");
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
      expect(requiredTokenScope(request("POST", `/api/functions/${name}`))).toBe(
        READ_ONLY_FUNCTIONS.has(name) ? "read" : "functions",
      );
    }
  });
});
