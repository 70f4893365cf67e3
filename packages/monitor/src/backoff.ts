/** Settings of an exponential backoff with jitter. */
export interface BackoffOptions {
  /** First delay after a failure (default 500 ms). */
  initialMs?: number;
  /** Upper bound of any delay (default 30 s). */
  maxMs?: number;
  /** Growth per consecutive failure (default 2). */
  factor?: number;
  /** Fraction of each delay that is randomised, 0..1 (default 0.2: delay × [0.8, 1.0]). */
  jitter?: number;
  /** Random source in [0, 1) (default Math.random); tests inject a fixed one. */
  random?: () => number;
}

/** Exponential backoff state: `next()` returns the delay for the next retry, `reset()` after a success. */
export interface Backoff {
  next(): number;
  reset(): void;
  readonly failures: number;
}

/** Creates an exponential backoff (delay = initial × factor^failures, capped, minus up to `jitter` of it). */
export function createBackoff(options: BackoffOptions = {}): Backoff {
  const initialMs = options.initialMs ?? 500;
  const maxMs = Math.max(options.maxMs ?? 30_000, initialMs);
  const factor = options.factor ?? 2;
  const jitter = Math.min(Math.max(options.jitter ?? 0.2, 0), 1);
  const random = options.random ?? Math.random;
  let failures = 0;
  return {
    next() {
      const base = Math.min(maxMs, initialMs * factor ** Math.min(failures, 64));
      failures += 1;
      return Math.round(base * (1 - jitter * random()));
    },
    reset() {
      failures = 0;
    },
    get failures() {
      return failures;
    },
  };
}
