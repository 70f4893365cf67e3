import fc from 'fast-check';
import { createBackoff } from './backoff';

describe('createBackoff', () => {
  it('grows exponentially up to the cap without jitter', () => {
    const delay = createBackoff({ initialMs: 100, maxMs: 1000, jitter: 0 });
    expect([1, 2, 3, 4, 5, 100].map(delay)).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('keeps jittered delays within [base × (1 − jitter), base] for any attempt', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        (attempt, r) => {
          const delay = createBackoff({ initialMs: 50, maxMs: 30_000, jitter: 0.5, random: () => r })(
            attempt,
          );
          const base = Math.min(30_000, 50 * 2 ** (attempt - 1));
          return delay >= Math.floor(base * 0.5) && delay <= base;
        },
      ),
    );
  });
});
