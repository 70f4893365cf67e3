import type { Clock } from '@kdp/base';

/** A token-bucket rate: `qps` tokens a second, at most `burst` saved up. */
export interface RateLimit {
  readonly qps: number;
  readonly burst: number;
}

/** The kubelet's pod-resources limit: 100 QPS, burst 10 (P-35). */
export const defaultPodResourcesRateLimit: RateLimit = { qps: 100, burst: 10 };

/** A token bucket on an injectable clock; `tryTake()` says whether one more call is allowed now. */
export interface RateLimiter {
  tryTake(): boolean;
}

/** Creates a token bucket that starts full, like golang.org/x/time/rate. */
export function createRateLimiter(limit: RateLimit, clock: Clock): RateLimiter {
  if (!(limit.qps > 0) || !(limit.burst >= 1)) {
    throw new RangeError(
      `rate limit needs qps > 0 and burst >= 1, got qps ${limit.qps}, burst ${limit.burst}`,
    );
  }
  let tokens = limit.burst;
  let last = clock.now();
  return {
    tryTake() {
      const now = clock.now();
      tokens = Math.min(limit.burst, tokens + ((now - last) / 1000) * limit.qps);
      last = now;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
  };
}
