import { createRateLimiter } from './rate-limiter';
import { createFakeClock } from './testing/fake-clock';

describe('createRateLimiter', () => {
  it('allows a burst, then refills at qps', () => {
    const clock = createFakeClock();
    const limiter = createRateLimiter({ qps: 100, burst: 10 }, clock);
    const first = Array.from({ length: 11 }, () => limiter.tryTake());
    expect(first.filter(Boolean)).toHaveLength(10);
    clock.advance(10);
    expect(limiter.tryTake()).toBe(true);
    expect(limiter.tryTake()).toBe(false);
  });

  it('rejects a nonsensical limit', () => {
    expect(() => createRateLimiter({ qps: 0, burst: 1 }, createFakeClock())).toThrow(RangeError);
  });
});
