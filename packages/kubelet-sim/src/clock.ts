/** The time source the simulator schedules its grace periods and rate limits on; inject a fake one in tests. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `fn` after `ms` milliseconds; returns a handle for {@link Clock.clearTimeout}. */
  setTimeout(fn: () => void, ms: number): unknown;
  /** Cancels a pending {@link Clock.setTimeout}. */
  clearTimeout(handle: unknown): void;
}

/** The real clock; its timers do not keep the process alive (a 5-minute grace must not block exit). */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** A high-resolution epoch timestamp in milliseconds that compares across processes on one machine. */
export function preciseNow(): number {
  return performance.timeOrigin + performance.now();
}
