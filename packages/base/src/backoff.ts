/** Options of {@link createBackoff}. */
export interface BackoffOptions {
  /** First delay in ms (default 50). */
  initialMs?: number;
  /** Largest delay in ms (default 30 000). */
  maxMs?: number;
  /** Growth per attempt (default 2). */
  factor?: number;
  /** Fraction of the delay that is random, 0…1 (default 0.5: delay × [0.5, 1]). */
  jitter?: number;
  /** Random source in [0, 1); injectable for tests. */
  random?: () => number;
}

/** Capped exponential backoff with jitter: returns the delay before retry number `attempt` (1-based). */
export function createBackoff(options: BackoffOptions = {}): (attempt: number) => number {
  const initialMs = options.initialMs ?? 50;
  const maxMs = options.maxMs ?? 30_000;
  const factor = options.factor ?? 2;
  const jitter = Math.min(1, Math.max(0, options.jitter ?? 0.5));
  const random = options.random ?? Math.random;
  return (attempt) => {
    const exponent = Math.max(0, attempt - 1);
    const base = Math.min(maxMs, initialMs * Math.pow(factor, Math.min(exponent, 64)));
    return Math.round(base * (1 - jitter * random()));
  };
}
