import { createBackoff } from './backoff';

describe('createBackoff', () => {
  it('doubles from the initial delay up to the cap, and starts over after reset', () => {
    const backoff = createBackoff({ initialMs: 100, maxMs: 1_000, jitter: 0 });
    expect([1, 2, 3, 4, 5, 6].map(() => backoff.next())).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    expect(backoff.failures).toBe(6);
    backoff.reset();
    expect(backoff.next()).toBe(100);
  });

  it('takes at most the jitter fraction off each delay', () => {
    const low = createBackoff({ initialMs: 1_000, jitter: 0.2, random: () => 0.999999 });
    const high = createBackoff({ initialMs: 1_000, jitter: 0.2, random: () => 0 });
    expect(low.next()).toBe(800);
    expect(high.next()).toBe(1_000);
  });

  it('never overflows after very many failures', () => {
    const backoff = createBackoff({ initialMs: 10, maxMs: 5_000, jitter: 0 });
    for (let i = 0; i < 10_000; i += 1) backoff.next();
    expect(backoff.next()).toBe(5_000);
  });
});
