import type { KubeletSim } from '@kdp/kubelet-sim';

/**
 * Resolves with the first non-undefined value of `check`, evaluated now and after every kubelet-sim event;
 * rejects with `describe()` (called at the deadline, so it can name what is missing) after `timeoutMs`.
 */
export function waitUntil<T>(
  sim: KubeletSim,
  check: () => T | undefined,
  timeoutMs: number,
  describe: () => string,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const first = check();
    if (first !== undefined) {
      resolve(first);
      return;
    }
    const onEvent = (): void => {
      const value = check();
      if (value === undefined) return;
      cleanup();
      resolve(value);
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(describe()));
    }, timeoutMs);
    const cleanup = (): void => {
      clearTimeout(timer);
      sim.events.off('event', onEvent);
    };
    sim.events.on('event', onEvent);
  });
}
