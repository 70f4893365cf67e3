import type { Clock } from '@kdp/base';
import type { Notifier } from './notifier';

/** Thrown out of every wait once a resource is being stopped. */
export class Stopped extends Error {}

/** Whether a resource is being stopped, and waits that end when it is. */
export interface StopGate {
  readonly stopping: boolean;
  /** Marks the resource as stopping and ends every wait. */
  stop(): void;
  /** Throws {@link Stopped} once stopping. */
  guard(): void;
  /** Waits for `notifier` (or `ms`); resolves true when notified; throws {@link Stopped} once stopping. */
  waitFor(notifier: Notifier, ms?: number): Promise<boolean>;
}

/** Creates the stop gate of one resource; waits run on `clock`. */
export function createStopGate(clock: Clock): StopGate {
  let stopping = false;
  const controller = new AbortController();
  const guard = (): void => {
    if (stopping) throw new Stopped();
  };
  return {
    get stopping() {
      return stopping;
    },
    stop() {
      stopping = true;
      controller.abort();
    },
    guard,
    async waitFor(notifier, ms) {
      guard();
      const notified = await notifier.wait(clock, ms, controller.signal);
      guard();
      return notified;
    },
  };
}
