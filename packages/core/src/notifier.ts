import type { Clock } from '@kdp/base';

/** A wake-up signal: `wait` resolves on the next `notify` (or one not yet consumed), after `ms`, or on abort. */
export interface Notifier {
  notify(): void;
  /** Resolves true when notified, false on timeout or abort. */
  wait(clock: Clock, ms?: number, signal?: AbortSignal): Promise<boolean>;
}

/** Creates a notifier; a notify with nobody waiting is remembered once. */
export function createNotifier(): Notifier {
  let pending = false;
  const waiters = new Set<(notified: boolean) => void>();
  return {
    notify() {
      if (waiters.size === 0) {
        pending = true;
        return;
      }
      const current = [...waiters];
      waiters.clear();
      for (const wake of current) wake(true);
    },
    wait(clock, ms, signal) {
      if (pending) {
        pending = false;
        return Promise.resolve(true);
      }
      if (signal?.aborted) return Promise.resolve(false);
      return new Promise((resolve) => {
        let timer: unknown;
        const wake = (notified: boolean): void => {
          waiters.delete(wake);
          if (timer !== undefined) clock.clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(notified);
        };
        const onAbort = (): void => wake(false);
        waiters.add(wake);
        signal?.addEventListener('abort', onAbort, { once: true });
        if (ms !== undefined) timer = clock.setTimeout(() => wake(false), ms);
      });
    },
  };
}
