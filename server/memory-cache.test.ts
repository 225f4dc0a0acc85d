import { afterEach, describe, expect, it, vi } from "vitest";
import { memoryCache, stringBytes } from "./memory-cache";

describe("memoryCache", () => {
  afterEach(() => vi.useRealTimers());

  it("is bounded by bytes, the least recently used going first", () => {
    const cache = memoryCache<string, string>({
      maxBytes: 300,
      maxEntryBytes: 300,
      bytesOf: (value) => value.length,
    });
    cache.set("a", "x".repeat(100));
    cache.set("b", "x".repeat(100));
    cache.set("c", "x".repeat(100));
    expect(cache.get("a")).toBeDefined(); // a is now the most recently used
    cache.set("d", "x".repeat(100));
    expect([...cache.keys()].sort()).toEqual(["a", "c", "d"]);
    expect(cache.calculatedSize).toBe(300);
  });

  it("keeps nothing larger than the largest entry allowed", () => {
    const cache = memoryCache<string, string>({
      maxBytes: 1_000,
      maxEntryBytes: 100,
      bytesOf: (value) => value.length,
    });
    cache.set("small", "x".repeat(100));
    cache.set("huge", "x".repeat(101));
    expect(cache.has("small")).toBe(true);
    expect(cache.has("huge")).toBe(false);
  });

  it("serves a value for its TTL only", () => {
    vi.useFakeTimers();
    const cache = memoryCache<string, string>({
      maxBytes: 1_000,
      ttlMs: 1_000,
      bytesOf: stringBytes,
    });
    cache.set("a", "value");
    vi.advanceTimersByTime(999);
    expect(cache.get("a")).toBe("value");
    vi.advanceTimersByTime(2);
    expect(cache.get("a")).toBeUndefined();
  });
});
