import type { Redis } from "ioredis";
import type pg from "pg";
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
} from "rate-limiter-flexible";
import { loadPg } from "../db";
import { getEnv } from "../env";
import { lazy } from "../lazy";
import { getLogger } from "../logger";

/** What a visitor reads when a public limit refuses them (forms, look-ups, search, the functions API). */
export const RATE_LIMITED_MESSAGE =
  "Too many requests from your address. Please wait a few minutes and try again.";

export interface RateLimit {
  /** Counts one attempt for `key`; false when the key has used up its allowance. */
  take(key: string): Promise<boolean>;
  /** True when `key` has used up its allowance (counts nothing). */
  isExhausted(key: string): Promise<boolean>;
  /** Forgets `key`'s attempts (e.g. after a successful sign-in). */
  reset(key: string): Promise<void>;
  /** Gives back one attempt taken for `key` (one that turned out not to count). */
  refund(key: string): Promise<void>;
  /** How many attempts `key` has made in its window. */
  count(key: string): Promise<number>;
  /** Refuses `key` for `seconds`, whatever it has used. */
  blockFor(key: string, seconds: number): Promise<void>;
  /** Counts one attempt for `key`; how many it has made in its window, this one included. */
  hit(key: string): Promise<number>;
}

// Each made on first use, and only with its setting: the Redis client and the PostgreSQL driver
// are loaded then (a server on SQLite without Redis never loads either).
let sharedPool: Promise<pg.Pool | null> | undefined;
let sharedRedis: Promise<Redis | null> | undefined;
const loadRedis = lazy(() => import("ioredis"));

/** With REDIS_URL, the limits live in Redis: fastest of the shared stores, and first choice. */
function redisStore(): Promise<Redis | null> {
  sharedRedis ??= (async () => {
    const url = getEnv().REDIS_URL;
    if (!url) return null;
    const { Redis } = await loadRedis();
    // No offline queue: a Redis that is away fails the request at once instead of queueing it.
    const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    redis.on("error", (error) => {
      getLogger().warn(
        { err: { message: error.message } },
        "Redis connection for rate limits failed",
      );
    });
    return redis;
  })();
  return sharedRedis;
}

/** Closes the shared stores' connections (the server's shutdown). */
export async function closeRateLimitStores(): Promise<void> {
  const [redis, pool] = [sharedRedis, sharedPool];
  sharedRedis = undefined;
  sharedPool = undefined;
  await (await redis?.catch(() => null))?.quit().catch(() => undefined);
  await (await pool?.catch(() => null))?.end().catch(() => undefined);
}

/**
 * Where the limits live: with a PostgreSQL DATABASE_URL, in that database (table `rate_limits`,
 * created by rate-limiter-flexible), so every instance counts against the same allowance (issue
 * 14); with SQLite (one instance by nature), in this process.
 */
function postgresStore(): Promise<pg.Pool | null> {
  sharedPool ??= (async () => {
    const url = process.env.DATABASE_URL ?? "";
    if (!/^postgres(ql)?:\/\//.test(url)) return null;
    const { Pool } = await loadPg();
    const pool = new Pool({ connectionString: url, max: 3, connectionTimeoutMillis: 10_000 });
    pool.on("error", (error) => {
      const { message, code } = error as Error & { code?: string };
      getLogger().warn({ err: { message, code } }, "PostgreSQL closed a rate-limit connection");
    });
    return pool;
  })();
  return sharedPool;
}

/**
 * A fixed allowance per key and window. `name` keeps limiters apart in the shared store. With
 * REDIS_URL or a PostgreSQL database every instance shares the count; otherwise it is this
 * process's.
 */
export function createRateLimit(options: {
  name: string;
  points: number;
  windowSeconds: number;
}): RateLimit {
  let built: Promise<RateLimiterAbstract> | undefined;
  const limiterOf = (): Promise<RateLimiterAbstract> => {
    built ??= (async (): Promise<RateLimiterAbstract> => {
      const common = {
        keyPrefix: options.name,
        points: options.points,
        duration: options.windowSeconds,
      };
      const redis = await redisStore();
      if (redis) {
        // Without an offline queue, commands sent before the connection is up would fail.
        if (redis.status !== "ready") {
          await new Promise<void>((done, fail) => {
            // Each listener takes the other away, so failed tries leave none behind.
            const onReady = () => {
              redis.off("error", onError);
              done();
            };
            const onError = (error: Error) => {
              redis.off("ready", onReady);
              fail(error);
            };
            redis.once("ready", onReady);
            redis.once("error", onError);
          });
        }
        // The prefix keeps deployments (and test runs) that share one Redis apart.
        const keyPrefix = `${getEnv().REDIS_KEY_PREFIX}${options.name}`;
        return new RateLimiterRedis({ ...common, keyPrefix, storeClient: redis });
      }
      const pool = await postgresStore();
      if (!pool) return new RateLimiterMemory(common);
      return new Promise<RateLimiterAbstract>((resolve, reject) => {
        const limiter: RateLimiterPostgres = new RateLimiterPostgres(
          {
            ...common,
            storeClient: pool,
            storeType: "pool",
            tableName: "rate_limits",
            clearExpiredByTimeout: true,
          },
          (error?: Error) => (error ? reject(error) : resolve(limiter)),
        );
      });
    })();
    built.catch(() => {
      built = undefined; // the database was away: try again on the next request
    });
    return built;
  };
  return {
    async take(key) {
      const limiter = await limiterOf();
      try {
        await limiter.consume(key);
        return true;
      } catch (error) {
        if (error instanceof RateLimiterRes) return false;
        throw error;
      }
    },
    async isExhausted(key) {
      const state = await (await limiterOf()).get(key);
      return state !== null && state.consumedPoints >= options.points;
    },
    async reset(key) {
      await (await limiterOf()).delete(key);
    },
    async refund(key) {
      await (await limiterOf()).reward(key, 1);
    },
    async count(key) {
      return (await (await limiterOf()).get(key))?.consumedPoints ?? 0;
    },
    async blockFor(key, seconds) {
      await (await limiterOf()).block(key, seconds);
    },
    async hit(key) {
      const limiter = await limiterOf();
      try {
        return (await limiter.consume(key)).consumedPoints;
      } catch (error) {
        if (error instanceof RateLimiterRes) return error.consumedPoints;
        throw error;
      }
    },
  };
}
