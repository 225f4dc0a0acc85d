import { afterEach, describe, expect, it, vi } from "vitest";
import { type CachedPage, PageCache } from "./page-cache";

const page = (body: string, tenantVersion = "v1"): CachedPage => ({
  status: 200,
  headers: [],
  body,
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
    expect(cache.get("main", "/", "v1")?.body).toBe("main home");
    expect(cache.get("keydiscovery", "/", "v1")?.body).toBe("kd home");
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
    expect(cache.get("keydiscovery", "/", "v1")?.body).toBe("c");
  });

  it("expires pages after the TTL", () => {
    vi.useFakeTimers();
    const cache = new PageCache(1_000);
    cache.set("main", "/", page("a"));
    vi.advanceTimersByTime(1_001);
    expect(cache.get("main", "/", "v1")).toBeUndefined();
  });
});
