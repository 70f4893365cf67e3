/** An opaque timer handle returned by a {@link Clock}. */
export type TimerHandle = unknown;

/** Time source and timers, injectable so that tests never depend on wall-clock speed. */
export interface Clock {
  /** Milliseconds since the epoch (may be fractional). */
  now(): number;
  /** Runs `fn` after `ms` milliseconds; the timer must not keep the process alive on its own. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /** Cancels a timer returned by {@link Clock.setTimeout}. */
  clearTimeout(handle: TimerHandle): void;
}

/** The real clock: `performance.timeOrigin + performance.now()` and unref'd Node timers. */
export const systemClock: Clock = {
  now: () => performance.timeOrigin + performance.now(),
  setTimeout: (fn, ms) => {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return timer;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Resolves after `ms` on `clock`, or at once when `signal` aborts. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = (): void => {
      clock.clearTimeout(handle);
      resolve();
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
