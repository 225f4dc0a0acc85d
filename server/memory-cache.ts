import { LRUCache } from "lru-cache";

/**
 * Every in-process cache of Herald is one of these (issue 34): lru-cache bounded by the bytes its
 * values hold, the least recently used going first when a new value needs the room, and with a
 * TTL where another instance's change must show within it. A value larger than `maxEntryBytes`
 * (by default an eighth of the whole) is not kept at all, so one huge page cannot empty a cache.
 */
export interface MemoryCacheOptions<K, V> {
  maxBytes: number;
  /** the bytes a value (with its key) holds, about: it decides what fits, not an exact count */
  bytesOf: (value: V, key: K) => number;
  maxEntryBytes?: number;
  /** how long a value serves at most; none: until it is the least recently used */
  ttlMs?: number;
}

export type MemoryCache<K extends {}, V extends {}> = LRUCache<K, V>;

// Date.now, not performance.now: tests move the clock with fake timers.
const wallClock = { now: () => Date.now() };

export function memoryCache<K extends {}, V extends {}>(
  options: MemoryCacheOptions<K, V>,
): MemoryCache<K, V> {
  return new LRUCache<K, V>({
    maxSize: options.maxBytes,
    maxEntrySize: options.maxEntryBytes ?? Math.floor(options.maxBytes / 8),
    // lru-cache refuses a size below 1.
    sizeCalculation: (value, key) => Math.max(1, Math.ceil(options.bytesOf(value, key))),
    ...(options.ttlMs === undefined
      ? {}
      : // ttlResolution 0: the clock is read at each look-up. By default lru-cache keeps the time
        // for 1 ms and starts a timer to forget it, one timer per millisecond of look-ups: the
        // sender, which looks up two caches for every message, spent more on those timers than
        // on the look-ups (issue 34, the sender's lost 14%).
        { ttl: options.ttlMs, ttlResolution: 0, perf: wallClock }),
  });
}

/** A string's bytes in V8's heap at most (two a character), and the entry's own few dozen. */
export const stringBytes = (text: string): number => 2 * text.length + 48;

export const MiB = 1024 * 1024;
