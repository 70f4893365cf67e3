import type { Clock } from './clock';

/** A clock that only moves when a test calls `advance`. */
export interface ManualClock extends Clock {
  advance(ms: number): Promise<void>;
  pending(): number;
}

/** Creates a manual clock starting at `start` ms. */
export function createManualClock(start = 1_000_000): ManualClock {
  let now = start;
  let nextId = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  return {
    now: () => now,
    setTimeout(fn, ms) {
      const id = nextId++;
      timers.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
    pending: () => timers.size,
    async advance(ms) {
      const end = now + ms;
      for (;;) {
        const due = [...timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
        if (due === undefined) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].fn();
        // Let promise continuations run before the next timer.
        for (let i = 0; i < 10; i++) await Promise.resolve();
      }
      now = end;
    },
  };
}
