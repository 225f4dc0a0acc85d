import pg from "pg";
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
} from "rate-limiter-flexible";
import { getLogger } from "../logger";

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
}

let sharedPool: pg.Pool | null | undefined;

/**
 * Where the limits live: with a PostgreSQL DATABASE_URL, in that database (table `rate_limits`,
 * created by rate-limiter-flexible), so every instance counts against the same allowance (issue
 * 14); with SQLite (one instance by nature), in this process.
 */
function postgresStore(): pg.Pool | null {
  if (sharedPool === undefined) {
    const url = process.env.DATABASE_URL ?? "";
    sharedPool = /^postgres(ql)?:\/\//.test(url)
      ? new pg.Pool({ connectionString: url, max: 3, connectionTimeoutMillis: 10_000 })
      : null;
    sharedPool?.on("error", (error) => {
      const { message, code } = error as Error & { code?: string };
      getLogger().warn({ err: { message, code } }, "PostgreSQL closed a rate-limit connection");
    });
  }
  return sharedPool;
}

/**
 * A fixed allowance per key and window. `name` keeps limiters apart in the shared store. With
 * PostgreSQL every instance shares the count (postgresStore); otherwise it is this process's.
 */
export function createRateLimit(options: {
  name: string;
  points: number;
  windowSeconds: number;
}): RateLimit {
  let built: Promise<RateLimiterAbstract> | undefined;
  const limiterOf = (): Promise<RateLimiterAbstract> => {
    built ??= new Promise((resolve, reject) => {
      const pool = postgresStore();
      const common = {
        keyPrefix: options.name,
        points: options.points,
        duration: options.windowSeconds,
      };
      if (!pool) {
        resolve(new RateLimiterMemory(common));
        return;
      }
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
  };
}
