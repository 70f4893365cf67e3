import type { KubeletSim } from '../kubelet-sim-types';
import type { SimEventOf, SimEventType } from '../sim-events';

/**
 * The next `type` event of `sim` that matches `predicate`; undefined after `timeoutMs`, or at once when
 * `signal` aborts (the suite aborts it when it ends, so no waiter outlives a run).
 */
export function nextEvent<T extends SimEventType>(
  sim: KubeletSim,
  type: T,
  predicate: (event: SimEventOf<T>) => boolean,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<SimEventOf<T> | undefined> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve(undefined);
      return;
    }
    const done = (event: SimEventOf<T> | undefined): void => {
      clearTimeout(timer);
      sim.events.off(type, listener);
      signal.removeEventListener('abort', aborted);
      resolve(event);
    };
    const listener = (event: SimEventOf<T>): void => {
      if (predicate(event)) done(event);
    };
    const aborted = (): void => done(undefined);
    const timer = setTimeout(aborted, Math.max(0, timeoutMs));
    sim.events.on(type, listener);
    signal.addEventListener('abort', aborted, { once: true });
  });
}
