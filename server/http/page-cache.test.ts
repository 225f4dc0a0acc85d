import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type CachedPage,
  fillPage,
  PAGE_QUERY,
  PageCache,
  pageCacheAddress,
  splitPage,
} from "./page-cache";

const page = (body: string, tenantVersion = "v1"): CachedPage => ({
  status: 200,
  headers: [],
  parts: splitPage(body, []),
  nonce: "n",
  tenantVersion,
  storedAt: Date.now(),
});

describe("PageCache", () => {
  afterEach(() => vi.useRealTimers());

  it("keeps pages per tenant and path", () => {
    const cache = new PageCache();
    cache.set("main", "/", page("main home"));
    cache.set("keydiscovery", "/", page("kd home"));
    expect(cache.get("main", "/", "v1")?.parts.text.join("")).toBe("main home");
    expect(cache.get("keydiscovery", "/", "v1")?.parts.text.join("")).toBe("kd home");
    expect(cache.get("main", "/about", "v1")).toBeUndefined();
  });

  it("drops a page when the tenant's config version changed", () => {
    const cache = new PageCache();
    cache.set("main", "/", page("old"));
    expect(cache.get("main", "/", "v2")).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("drops every page of one tenant only", () => {
    const cache = new PageCache();
    cache.set("main", "/", page("a"));
    cache.set("main", "/about", page("b"));
    cache.set("keydiscovery", "/", page("c"));
    cache.dropTenant("main");
    expect(cache.size).toBe(1);
    expect(cache.get("keydiscovery", "/", "v1")?.parts.text.join("")).toBe("c");
  });

  it("lets a crawler's one-off pages push out each other, not the pages readers keep asking for", () => {
    const article = (n: number) => page(`<p>${n}</p>`.padEnd(10_000, " "));
    const cache = new PageCache({ maxBytes: 200_000 });
    const hot = ["/", "/newsletter", "/newsletter/launch"];
    for (const path of hot) cache.set("main", path, article(0));
    // A crawler walks 500 archive pages (25 times what fits) while readers keep reading the hot ones.
    for (let n = 1; n <= 500; n++) {
      cache.set("main", `/newsletter/archive/${n}`, article(n));
      if (n % 5 === 0) for (const path of hot) expect(cache.get("main", path, "v1")).toBeDefined();
    }
    for (const path of hot) expect(cache.get("main", path, "v1")).toBeDefined();
    expect(cache.get("main", "/newsletter/archive/1", "v1")).toBeUndefined();
    expect(cache.bytes).toBeLessThanOrEqual(200_000);
    expect(cache.size).toBeGreaterThan(10);
  });

  it("refuses a page larger than a quarter of the cache, and keeps the rest", () => {
    const cache = new PageCache({ maxBytes: 100_000 });
    cache.set("main", "/", page("home"));
    cache.set("main", "/huge", page("x".repeat(30_000)));
    expect(cache.get("main", "/huge", "v1")).toBeUndefined();
    expect(cache.get("main", "/", "v1")).toBeDefined();
  });

  it("expires pages after the TTL", () => {
    vi.useFakeTimers();
    const cache = new PageCache({ ttlMs: 1_000 });
    cache.set("main", "/", page("a"));
    vi.advanceTimersByTime(1_001);
    expect(cache.get("main", "/", "v1")).toBeUndefined();
  });
});

describe("splitPage and fillPage", () => {
  it("puts each request's values where the markers were, and leaves the rest alone", () => {
    const body =
      '<script nonce="N0+/=">x</script><p>987,654,321 views</p><script>{"views":987654321}</script>';
    const parts = splitPage(body, ["N0+/=", "987,654,321 views", "987654321"]);
    expect(parts.markers).toEqual(["N0+/=", "987,654,321 views", "987654321"]);
    const values = new Map([
      ["N0+/=", "fresh"],
      ["987,654,321 views", "1,204 views"],
      ["987654321", "1204"],
    ]);
    expect(fillPage(parts, values).toString()).toBe(
      '<script nonce="fresh">x</script><p>1,204 views</p><script>{"views":1204}</script>',
    );
    // The same parts serve the next request with its own values.
    expect(fillPage(parts, new Map([["N0+/=", "next"]])).toString()).toContain('nonce="next"');
    // Text is kept as UTF-8 bytes: characters outside ASCII come through whole.
    const accented = splitPage("café — N", ["N"]);
    expect(fillPage(accented, new Map([["N", "ñ"]])).toString()).toBe("café — ñ");
  });

  it("returns the page whole when there is no marker in it", () => {
    for (const parts of [splitPage("<p>plain</p>", ["absent"]), splitPage("<p>plain</p>", [])]) {
      expect(parts.markers).toEqual([]);
      expect(fillPage(parts, new Map()).toString()).toBe("<p>plain</p>");
    }
  });
});

// Issue 44, finding 2: the key varies only on the parameters pages read.
describe("pageCacheAddress", () => {
  it("leaves out parameters no page reads, from the key and from the render", () => {
    expect(pageCacheAddress("/about", "?x=random")).toEqual({
      key: "/about",
      renderAt: "/about",
      dropped: true,
    });
    expect(pageCacheAddress("/about", "")).toEqual({
      key: "/about",
      renderAt: "/about",
      dropped: false,
    });
    expect(pageCacheAddress("/newsletter", "?x=1&page=2&utm_source=news&fbclid=abc")).toEqual({
      key: "/newsletter?page=2",
      renderAt: "/newsletter?page=2&utm_source=news",
      dropped: true,
    });
    expect(pageCacheAddress("/contact", "?sent=1&page=3")?.key).toBe("/contact?page=3&sent=1");
    expect(pageCacheAddress("/contact", "?page=3&sent=1")?.key).toBe("/contact?page=3&sent=1");
  });

  it("keeps nothing for a search, a value a page does not tell apart, or a parameter twice", () => {
    expect(pageCacheAddress("/newsletter/search", "?q=tax")).toBeNull();
    expect(pageCacheAddress("/newsletter", "?page=abc")).toBeNull();
    expect(pageCacheAddress("/newsletter", "?page=0")).toBeNull();
    expect(pageCacheAddress("/newsletter", "?page=2&page=3")).toBeNull();
    expect(pageCacheAddress("/contact", "?sent=yes")).toBeNull();
  });

  it("knows every parameter a public page reads (or the page is never kept with one)", () => {
    const root = join(import.meta.dirname, "../../app/routes");
    const reads = new Set<string>();
    for (const folder of ["marketing", "newsletter"]) {
      for (const file of readdirSync(join(root, folder))) {
        const source = readFileSync(join(root, folder, file), "utf8");
        for (const match of source.matchAll(/searchParams\.(?:get|has|getAll)\("([^"]+)"\)/g)) {
          reads.add(match[1] as string);
        }
      }
    }
    expect(reads.size).toBeGreaterThan(0);
    for (const name of reads) {
      const known = name in PAGE_QUERY || pageCacheAddress("/", `?${name}=1`) === null;
      expect(known, `a public page reads ?${name}`).toBe(true);
    }
  });
});
