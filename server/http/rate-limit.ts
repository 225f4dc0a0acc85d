import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";

export interface RateLimit {
  /** Counts one attempt for `key`; false when the key has used up its allowance. */
  take(key: string): Promise<boolean>;
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
  };
}
