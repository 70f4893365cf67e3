import type { Clock } from '@kdp/base';

/** A manual clock for tests: time moves only when {@link FakeClock.advance} is called. */
export interface FakeClock extends Clock {
  /** Moves time forward, running every timer that falls due, in order. */
  advance(ms: number): void;
  /** Timers not yet run. */
  readonly pending: number;
}

/** Creates a {@link FakeClock} starting at `start` ms since the epoch. */
export function createFakeClock(start = 1_700_000_000_000): FakeClock {
  let now = start;
  let nextId = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  return {
    now: () => now,
    setTimeout: (fn, ms) => {
      nextId += 1;
      timers.set(nextId, { at: now + ms, fn });
      return nextId;
    },
    clearTimeout: (handle) => {
      timers.delete(handle as number);
    },
    advance(ms) {
      const target = now + ms;
      for (;;) {
        const due = [...timers].filter(([, t]) => t.at <= target).sort((a, b) => a[1].at - b[1].at)[0];
        if (due === undefined) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].fn();
      }
      now = target;
    },
    get pending() {
      return timers.size;
    },
  };
}
