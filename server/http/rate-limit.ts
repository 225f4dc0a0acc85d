import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";

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

/**
 * A fixed allowance per key and window, kept in this process. Several app instances each keep their
 * own count, which loosens the limit by the number of instances; see docs/decisions/003.
 */
export function createRateLimit(options: { points: number; windowSeconds: number }): RateLimit {
  const limiter = new RateLimiterMemory({
    points: options.points,
    duration: options.windowSeconds,
  });
  return {
    async take(key) {
      try {
        await limiter.consume(key);
        return true;
      } catch (error) {
        if (error instanceof RateLimiterRes) return false;
        throw error;
      }
    },
    async isExhausted(key) {
      const state = await limiter.get(key);
      return state !== null && state.consumedPoints >= options.points;
    },
    async reset(key) {
      await limiter.delete(key);
    },
    async refund(key) {
      await limiter.reward(key, 1);
    },
    async count(key) {
      return (await limiter.get(key))?.consumedPoints ?? 0;
    },
    async blockFor(key, seconds) {
      await limiter.block(key, seconds);
    },
  };
}
