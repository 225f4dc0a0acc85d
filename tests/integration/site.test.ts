import { randomBytes } from "node:crypto";
import http from "node:http";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNewsletter } from "../../server/newsletters/editing";
import { publishNewsletter } from "../../server/newsletters/newsletters";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { metaContent, textOf, titleOf } from "../support/html";
import { type RunningServer, requestWithHost, startServer } from "../support/server";
import { scaled } from "../support/timing";

describe.each(testDialects())("the public site on %s", (dialect) => {
  let database: TestDatabase;
  let server: RunningServer;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    server = await startServer({ databaseUrl: database.url });
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { headers, redirect: "manual" });
  // fetch() may not override Host, so host-based resolution is exercised over plain HTTP.
  const getWithHost = (path: string, host: string) => requestWithHost(server.port, path, host);

  it("ends a cached page sent gzip-compressed that fills the socket's buffer (it hung, issue 35)", async () => {
    // The raw answer, compressed as a browser asks for it: its header and body bytes.
    const gzipped = (path: string) =>
      new Promise<{ status: number; cache: string; bytes: number; html: string }>(
        (resolve, reject) => {
          const request = http.get(
            `${server.url}${path}`,
            { headers: { "accept-encoding": "gzip" }, timeout: scaled(15_000) },
            (response) => {
              const chunks: Buffer[] = [];
              response.on("data", (chunk: Buffer) => chunks.push(chunk));
              response.on("end", () => {
                const body = Buffer.concat(chunks);
                resolve({
                  status: response.statusCode ?? 0,
                  cache: String(response.headers["x-page-cache"]),
                  bytes: response.rawHeaders.join(": ").length + body.length,
                  html: gunzipSync(body).toString(),
                });
              });
              response.on("error", reject);
            },
          );
          request.on("timeout", () => request.destroy(new Error(`${path}: no end`)));
          request.on("error", reject);
        },
      );
    // A newsletter page whose text does not compress: about 24 KB gzip.
    const scope = { db: database.db, tenantId: "main", authorId: null };
    const words = Array.from({ length: 12 }, () => `<p>${randomBytes(1500).toString("hex")}</p>`);
    const { id, slug } = await createNewsletter(scope, {
      title: "A long issue",
      excerpt: "Long",
      content: words.join(""),
      readTime: 9,
    });
    await publishNewsletter(scope, id);
    await gzipped(`/newsletter/${slug}`);
    const hit = await gzipped(`/newsletter/${slug}`);
    expect(hit.status).toBe(200);
    expect(hit.cache).toBe("hit");
    expect(hit.html).toContain("</html>");
    // The case that hung: more than the socket's 16 KB buffer, written while it was corked.
    expect(hit.bytes).toBeGreaterThan(16_384);
  });

  it("inlines the whole stylesheet, the same on a page with scripts and on one without", async () => {
    const page = async (path: string) => {
      const html = await (await get(path)).text();
      return { style: /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? "", html };
    };
    // Both are rendered to a string with the stylesheet's bytes put in afterwards; the 404 page
    // has scripts, and its hydration data is read before its render.
    const home = await page("/?fresh=1");
    const notFound = await page("/no-such-page");
    expect(home.html).not.toContain("modulepreload");
    expect(notFound.html).toContain("modulepreload");
    const [withoutScripts, withScripts] = [home.style, notFound.style];
    expect(withoutScripts.length).toBeGreaterThan(20_000);
    expect(withoutScripts).toContain("--tw-");
    expect(withoutScripts).not.toContain("herald:stylesheet");
    expect(withScripts).toBe(withoutScripts);
  });

  it("gives a page with scripts its loader data, read before the render: the data, then the close", async () => {
    const html = await (await get("/no-such-page")).text();
    const enqueue = html.indexOf("window.__reactRouterContext.streamController.enqueue(");
    const close = html.indexOf("window.__reactRouterContext.streamController.close();");
    expect(enqueue).toBeGreaterThan(html.indexOf("window.__reactRouterContext = "));
    expect(close).toBeGreaterThan(enqueue);
    expect(html.match(/streamController\.enqueue\(/g)).toHaveLength(1);
    const data = html.slice(enqueue, close);
    expect(data).toContain("routes/not-found");
    expect(data).toContain("KeyDiscovery");
    // Nothing was left for React to stream in later.
    expect(html).not.toContain("<template");
    expect(html).not.toContain("$RC");
    expect(html.trimEnd().endsWith("</html>")).toBe(true);
  });

  it("migrates and seeds a fresh database on first start", async () => {
    const tenants = await database.db
      .selectFrom("tenants")
      .select(["id", "name"])
      .orderBy("id")
      .execute();
    expect(tenants).toEqual([
      { id: "keydiscovery", name: "KeyDiscovery Legal" },
      { id: "main", name: "KeyDiscovery" },
    ]);
  });

  const PAGES: { path: string; texts: string[] }[] = [
    {
      path: "/",
      texts: [
        "busy shipping new features",
        "Join our newsletter",
        "20%",
        "month-over-month audience growth",
        "89%",
        "lower acquisition cost",
        "300%",
        "more qualified leads",
        "40%",
        "higher engagement",
        "The challenge",
        "Who we work with",
        "Book a call",
      ],
    },
    {
      path: "/about",
      texts: [
        "Authenticity",
        "Strategic Focus",
        "Collaborative Partnership",
        "Innovation",
        "Voice",
        "Vision",
        "Values",
      ],
    },
    {
      path: "/services",
      texts: [
        "Lead Generation and Nurture",
        "Customer Response Optimization",
        "Data Processing and Analysis",
        "Strategic Consulting",
        "Process Optimization",
        "Custom Automation",
        "Discovery",
        "Structure",
        "Refinement",
      ],
    },
    {
      path: "/products",
      texts: [
        "Multi-Tenant Newsletter Platform",
        "Reader-First Insights (RFI)",
        "Custom Automation Solutions",
      ],
    },
    {
      path: "/contact",
      texts: [
        "Full name",
        "Email",
        "Company",
        "Message",
        "within 24 hours",
        "Monday to Friday, 9 AM to 6 PM EST",
        "4–8 weeks",
        "What to expect",
        "Frequently asked questions",
      ],
    },
    { path: "/privacy", texts: ["Privacy", "KeyDiscovery"] },
    { path: "/terms", texts: ["Terms", "KeyDiscovery"] },
    { path: "/newsletter", texts: ["Newsletter"] },
  ];

  it.each(PAGES)(
    "serves $path with its content, title, description and Open Graph tags",
    async ({ path, texts }) => {
      const response = await get(path);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/text\/html/);
      const html = await response.text();
      const text = textOf(html);
      for (const expected of texts) expect(text).toContain(expected);
      expect(html.match(/<h1[\s>]/g)).toHaveLength(1);
      expect(titleOf(html)).toMatch(/KeyDiscovery/);
      const description = metaContent(html, "name", "description");
      expect(description?.length).toBeGreaterThan(50);
      expect(metaContent(html, "property", "og:title")).toBeTruthy();
      expect(metaContent(html, "property", "og:url")).toBe(
        `http://localhost:${server.port}${path}`,
      );
      expect(html).toContain(
        `<link rel="canonical" href="http://localhost:${server.port}${path}"/>`,
      );
      expect(html).toMatch(/<main[\s>]/);
      expect(html).toMatch(/<header[\s>]/);
      expect(html).toMatch(/<footer[\s>]/);
    },
  );

  it("links the hero to /newsletter and the call to action to /contact", async () => {
    const html = await (await get("/")).text();
    expect(html).toMatch(/<a[^>]*href="\/newsletter"[^>]*>Join our newsletter<\/a>/);
    expect(html).toMatch(/<a[^>]*href="\/contact"[^>]*>Book a call<\/a>/);
  });

  it("shows the navigation bar with Sign In when signed out", async () => {
    const html = await (await get("/about")).text();
    for (const [label, href] of [
      ["Home", "/"],
      ["About", "/about"],
      ["Services", "/services"],
      ["Products", "/products"],
      ["Contact", "/contact"],
      ["Sign In", "/admin/login"],
    ]) {
      expect(html).toMatch(new RegExp(`<a[^>]*href="${href}"[^>]*>${label}</a>`));
    }
    expect(textOf(html)).not.toContain("Sign Out");
    expect(textOf(html)).not.toContain("Dashboard");
  });

  it("answers unknown URLs with a 404 page inside the site's frame", async () => {
    const response = await get("/no-such-page");
    expect(response.status).toBe(404);
    const html = await response.text();
    expect(textOf(html)).toContain("Page not found");
    expect(html).toContain('data-tenant="main"');
  });

  describe("tenants", () => {
    it("brands the default tenant with the default colours", async () => {
      const html = await (await get("/")).text();
      expect(html).toContain('data-tenant="main"');
      expect(html).toContain("--brand-primary:#4a90e2");
      expect(html).toContain("--brand-secondary:#f5a623");
      expect(html).toContain("--brand-accent:#50e3c2");
      expect(html).toContain('<link rel="icon" href="/brand/favicon.svg?tenant=main"/>');
      expect(html).toMatch(/data-testid="header-company-name">KeyDiscovery</);
      expect(html).toMatch(/data-testid="footer-company-name">KeyDiscovery</);
    });

    it("selects keydiscovery with ?subdomain= on localhost and remembers it in a cookie", async () => {
      const response = await get("/?subdomain=keydiscovery");
      const html = await response.text();
      expect(html).toContain('data-tenant="keydiscovery"');
      expect(html).toContain("--brand-primary:#1b365d");
      expect(html).toContain("--brand-font:Georgia");
      expect(html).toMatch(/data-testid="header-company-name">KeyDiscovery Legal</);
      expect(html).toMatch(/data-testid="footer-company-name">KeyDiscovery Legal</);
      const cookie = response.headers.get("set-cookie") ?? "";
      expect(cookie).toMatch(/herald_subdomain=keydiscovery/);
      expect(cookie).toMatch(/HttpOnly/i);

      const next = await (await get("/about", { cookie: "herald_subdomain=keydiscovery" })).text();
      expect(next).toContain('data-tenant="keydiscovery"');
    });

    it("resolves the tenant from the host name", async () => {
      const kd = await getWithHost("/", "news.keydiscovery.example");
      expect(kd).toContain('data-tenant="keydiscovery"');
      const other = await getWithHost("/", "www.example.org");
      expect(other).toContain('data-tenant="main"');
      // The subdomain parameter is a localhost convenience, not a way to switch a real domain.
      const forced = await getWithHost("/?subdomain=keydiscovery", "www.example.org");
      expect(forced).toContain('data-tenant="main"');
    });

    it("serves a favicon in the tenant's colour", async () => {
      const main = await (await get("/brand/favicon.svg")).text();
      expect(main).toContain('fill="#4a90e2"');
      const kd = await (
        await get("/brand/favicon.svg", { cookie: "herald_subdomain=keydiscovery" })
      ).text();
      expect(kd).toContain('fill="#1b365d"');
    });

    it("sees a tenant's saved branding (config cached per id, merged over the defaults)", async () => {
      await database.db
        .updateTable("tenants")
        .set({
          config: JSON.stringify({ branding: { primaryColor: "#aa3311" } }),
          updated_at: new Date().toISOString(),
        })
        .where("id", "=", "main")
        .execute();
      // Another writer changed the row: the cache picks it up within its TTL (5 s).
      await new Promise((resolve) => setTimeout(resolve, 5_200));
      const html = await (await get("/")).text();
      expect(html).toContain("--brand-primary:#aa3311");
      expect(html).toContain("--brand-secondary:#f5a623");
    });
  });

  describe("page cache", () => {
    it("serves repeat anonymous views from the cache with a fresh CSP nonce each time", async () => {
      await get("/services");
      const first = await get("/services");
      const second = await get("/services");
      expect(first.headers.get("x-page-cache")).toBe("hit");
      const nonceOf = (response: Response) =>
        response.headers.get("content-security-policy")?.match(/'nonce-([^']+)'/)?.[1];
      const [nonce1, nonce2] = [nonceOf(first), nonceOf(second)];
      expect(nonce1).toBeTruthy();
      expect(nonce1).not.toBe(nonce2);
      const html = await second.text();
      expect(html).not.toContain(`nonce="${nonce1}"`);
      // A marketing page ships no script (issue 17): nothing in it needs the nonce.
      expect(html).not.toContain("<script");
    });

    it("never repeats a nonce, across refills of the pool it is cut from", async () => {
      const nonces: string[] = [];
      // The pool holds 256 nonces: 600 responses cross two refills.
      for (let i = 0; i < 600; i++) {
        const response = await get("/robots.txt");
        await response.arrayBuffer();
        const nonce = response.headers
          .get("content-security-policy")
          ?.match(/'nonce-([^']+)'/)?.[1];
        expect(Buffer.from(nonce ?? "", "base64")).toHaveLength(16);
        nonces.push(nonce ?? "");
      }
      expect(new Set(nonces).size).toBe(nonces.length);
    });

    // Issue 44, finding 2: `?x=<random>` skipped the cache, a full render each time.
    it("ignores query parameters no page reads: a hit, and a kept page never holds them", async () => {
      const random = () => Math.random().toString(36).slice(2);
      const first = random();
      const cold = await get(`/privacy?x=${first}`);
      expect(cold.headers.get("x-page-cache")).toBe("miss");
      expect(await cold.text()).not.toContain(first);
      for (const value of [random(), random()]) {
        const page = await get(`/privacy?x=${value}&utm_source=news`);
        expect(page.headers.get("x-page-cache")).toBe("hit");
        expect(await page.text()).not.toContain(value);
      }
      // What a page reads still tells pages apart: the contact form's thanks is another page.
      await get("/contact");
      const thanks = await get("/contact?sent=1&x=1");
      expect(thanks.headers.get("x-page-cache")).toBe("miss");
      expect((await get("/contact?x=2&sent=1")).headers.get("x-page-cache")).toBe("hit");
    });

    it("keeps tenants apart and never caches for a signed-in visitor", async () => {
      await get("/products?subdomain=keydiscovery");
      const kd = await get("/products", { cookie: "herald_subdomain=keydiscovery" });
      expect(await kd.text()).toContain('data-tenant="keydiscovery"');
      const main = await get("/products");
      expect(await main.text()).toContain('data-tenant="main"');
      const signedIn = await get("/products", { cookie: "herald_session=abc" });
      expect(signedIn.headers.get("x-page-cache")).toBeNull();
    });
  });

  describe("security", () => {
    it("sends security headers", async () => {
      const response = await get("/");
      expect(response.headers.get("content-security-policy")).toMatch(/script-src 'self' 'nonce-/);
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("x-frame-options")).toBe("SAMEORIGIN");
      expect(response.headers.get("x-powered-by")).toBeNull();
    });
  });
});
