import { describe, expect, it } from "vitest";
import { embedSitesSchema, siteOrigin } from "../../shared/schemas/embed";
import { embedPagePolicy } from "../http/security";
import { embedPostSource, framedPage } from "./embed";

const allowed = new Set(["https://www.partner.example", "https://herald.example"]);
const headers = (values: Record<string, string>) => new Headers(values);

describe("the embedded form's sites", () => {
  it("normalises a written site to its origin, and refuses what is not one", () => {
    expect(siteOrigin(" WWW.Example.com ")).toBe("https://www.example.com");
    expect(siteOrigin("https://www.example.com:443/")).toBe("https://www.example.com");
    expect(siteOrigin("http://localhost:8080")).toBe("http://localhost:8080");
    for (const bad of [
      "https://www.example.com/blog",
      "https://www.example.com/?a=1",
      "https://user:pw@example.com",
      "ftp://example.com",
      "javascript:alert(1)",
      "<script>",
      `https://${"a".repeat(250)}.com`,
      "",
    ]) {
      expect(siteOrigin(bad), bad).toBeNull();
    }
  });

  // Issue 44, finding 5: these reached the header as `frame-ancestors 'self' https://*`.
  it.each([
    "*",
    "https://*",
    "https://*.example.com",
    "https://%2a.example",
    "https://%41.example",
    "{}",
    "https://{}",
    '"https://a.example"',
    "'self'",
    "https://a.example'",
    "https://a.example;",
    "https://a_b.example",
    "https:\\\\a.example",
    "https://-a.example",
    "https://a..example",
    "https://a.example:99999",
  ])("refuses %j as a site: a proper origin only", (bad) => {
    expect(siteOrigin(bad)).toBeNull();
    const parsed = embedSitesSchema.safeParse({ sites: bad });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toContain("is not a site's address");
  });

  it("takes host names, IP addresses, ports and international names", () => {
    expect(siteOrigin("https://192.168.1.20:8443")).toBe("https://192.168.1.20:8443");
    expect(siteOrigin("http://[::1]:3000")).toBe("http://[::1]:3000");
    expect(siteOrigin("bücher.example")).toBe("https://xn--bcher-kva.example");
    expect(siteOrigin("https://xn--bcher-kva.example")).toBe("https://xn--bcher-kva.example");
  });

  it("builds the frame's header from proper origins only, whatever was stored", () => {
    const policy = embedPagePolicy([
      "https://*",
      "https://ok.example",
      "'unsafe-inline'",
      "https://a.example; script-src *",
      "https://ok.example/path",
      "http://localhost:8080",
    ]);
    expect(policy).toContain("frame-ancestors 'self' https://ok.example http://localhost:8080;");
  });

  it("reads the staff form: one a line or comma-separated, duplicates dropped, at most 20", () => {
    expect(
      embedSitesSchema.parse({ sites: "https://a.example/\nB.example, https://a.example" }).sites,
    ).toEqual(["https://a.example", "https://b.example"]);
    expect(embedSitesSchema.parse({}).sites).toEqual([]);
    const many = Array.from({ length: 21 }, (_, n) => `s${n}.example`).join("\n");
    expect(embedSitesSchema.safeParse({ sites: many }).success).toBe(false);
  });
});

describe("where a post comes from", () => {
  it("the Origin decides; the page is the Referer on that origin, else the origin", () => {
    expect(
      embedPostSource(
        headers({
          origin: "https://www.partner.example",
          referer: "https://www.partner.example/join?x=1",
        }),
        allowed,
      ),
    ).toEqual({
      allowed: true,
      origin: "https://www.partner.example",
      page: "https://www.partner.example/join?x=1",
    });
    // A Referer from elsewhere is not recorded as the page.
    expect(
      embedPostSource(
        headers({ origin: "https://www.partner.example", referer: "https://other.example/" }),
        allowed,
      ),
    ).toMatchObject({ allowed: true, page: "https://www.partner.example" });
    // An allowed Referer does not clear a refused Origin.
    expect(
      embedPostSource(
        headers({ origin: "https://evil.example", referer: "https://www.partner.example/" }),
        allowed,
      ).allowed,
    ).toBe(false);
  });

  it("without Origin (or null), the Referer's origin; with neither, refused", () => {
    expect(
      embedPostSource(
        headers({ origin: "null", referer: "https://www.partner.example/a" }),
        allowed,
      ),
    ).toMatchObject({ allowed: true, page: "https://www.partner.example/a" });
    expect(embedPostSource(headers({ origin: "null" }), allowed).allowed).toBe(false);
    expect(embedPostSource(headers({}), allowed)).toEqual({ allowed: false, origin: null });
  });

  it("keeps a framed page only when it is on an allowed site", () => {
    expect(framedPage("https://www.partner.example/landing", allowed)).toBe(
      "https://www.partner.example/landing",
    );
    expect(framedPage("https://evil.example/", allowed)).toBeNull();
    expect(framedPage("javascript:alert(1)", allowed)).toBeNull();
    expect(framedPage(["x"], allowed)).toBeNull();
  });
});
