import type { Clock } from '../clock';

/** A clock that only moves when told; timers fire in order during `advance`. */
export interface ManualClock extends Clock {
  advance(ms: number): void;
  /** Delays of the timers scheduled so far, in order. */
  readonly scheduled: number[];
  pending(): number;
}

/** Creates a {@link ManualClock} starting at `start` ms. */
export function createManualClock(start = 1_700_000_000_000): ManualClock {
  let now = start;
  let nextId = 1;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const scheduled: number[] = [];
  return {
    now: () => now,
    setTimeout(fn, ms) {
      const id = nextId++;
      timers.set(id, { at: now + ms, fn });
      scheduled.push(ms);
      return id;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
    advance(ms) {
      const until = now + ms;
      for (;;) {
        const due = [...timers.entries()]
          .filter(([, t]) => t.at <= until)
          .sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].fn();
      }
      now = until;
    },
    scheduled,
    pending: () => timers.size,
  };
}
