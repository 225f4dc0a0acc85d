import { describe, expect, it } from "vitest";
import { hostnameOf, resolveTenantId, type TenantDirectory } from "./resolve";

const directory: TenantDirectory = {
  ids: new Set(["main", "keydiscovery", "acme"]),
  byDomain: new Map([["news.acme-legal.com", "acme"]]),
};

describe("resolveTenantId", () => {
  it.each([
    ["keydiscovery.com", "keydiscovery"],
    ["www.keydiscovery.com", "keydiscovery"],
    ["news.KeyDiscovery.io:8443", "keydiscovery"],
    ["example.com", "main"],
    ["acme.herald.example", "acme"],
    ["news.acme-legal.com", "acme"],
    ["unknown.herald.example", "main"],
  ])("host %s → %s", (host, expected) => {
    expect(resolveTenantId({ host }, directory)).toBe(expected);
  });

  it("lets ?subdomain= choose on localhost, then the remembered cookie", () => {
    expect(
      resolveTenantId({ host: "localhost:3000", subdomainParam: "keydiscovery" }, directory),
    ).toBe("keydiscovery");
    expect(resolveTenantId({ host: "127.0.0.1:3000", subdomainParam: "acme" }, directory)).toBe(
      "acme",
    );
    expect(resolveTenantId({ host: "localhost", subdomainCookie: "keydiscovery" }, directory)).toBe(
      "keydiscovery",
    );
    expect(
      resolveTenantId(
        { host: "localhost", subdomainParam: "main", subdomainCookie: "keydiscovery" },
        directory,
      ),
    ).toBe("main");
    expect(resolveTenantId({ host: "localhost" }, directory)).toBe("main");
    expect(
      resolveTenantId({ host: "[::1]:3000", subdomainParam: "my-keydiscovery-demo" }, directory),
    ).toBe("keydiscovery");
    expect(resolveTenantId({ host: "localhost", subdomainParam: "nobody" }, directory)).toBe(
      "main",
    );
  });

  it("ignores ?subdomain= on a real domain", () => {
    expect(
      resolveTenantId({ host: "example.com", subdomainParam: "keydiscovery" }, directory),
    ).toBe("main");
  });

  it("a configured domain wins over the name rule", () => {
    const withDomain: TenantDirectory = {
      ids: directory.ids,
      byDomain: new Map([["keydiscovery.acme.com", "acme"]]),
    };
    expect(resolveTenantId({ host: "keydiscovery.acme.com" }, withDomain)).toBe("acme");
  });
});

describe("hostnameOf", () => {
  it("drops the port and lower-cases", () => {
    expect(hostnameOf("Example.COM:3000")).toBe("example.com");
    expect(hostnameOf("[::1]:3000")).toBe("[::1]");
  });
});
