import type { EventEmitter } from 'node:events';
import type { SimEvent } from '../../sim-events';

/** Every event of a simulated kubelet, numbered, so that a step waits only for what happened after it began. */
export interface SimEventRecorder {
  readonly recorded: readonly SimEvent[];
  /** The number of the next event, to pass as `from` later. */
  mark(): number;
  /** The first event from number `from` on that matches, waiting up to `timeoutMs`; `undefined` if none. */
  seen<E extends SimEvent>(
    predicate: (event: SimEvent) => event is E,
    timeoutMs: number,
    from?: number,
  ): Promise<E | undefined>;
  /** Stops recording. */
  close(): void;
}

/** A type guard for events of `type` that pass `test`. */
export const isEvent =
  <T extends SimEvent['type']>(type: T, test: (e: Extract<SimEvent, { type: T }>) => boolean = () => true) =>
  (e: SimEvent): e is Extract<SimEvent, { type: T }> =>
    e.type === type && test(e as Extract<SimEvent, { type: T }>);

/** Starts recording the `event`s of `events`; an abort of `signal` ends every wait with `undefined`. */
export function createSimEventRecorder(options: {
  readonly events: EventEmitter;
  readonly signal: AbortSignal;
}): SimEventRecorder {
  const { events, signal } = options;
  const recorded: SimEvent[] = [];
  const waiters = new Set<() => void>();
  const record = (event: SimEvent): void => {
    recorded.push(event);
    for (const wake of [...waiters]) wake();
  };
  events.on('event', record);
  const seen = <E extends SimEvent>(
    predicate: (event: SimEvent) => event is E,
    timeoutMs: number,
    from = 0,
  ): Promise<E | undefined> =>
    new Promise((resolve) => {
      const look = (): boolean => {
        const found = recorded.slice(from).find(predicate);
        if (found === undefined) return false;
        done(found);
        return true;
      };
      const done = (result: E | undefined): void => {
        clearTimeout(timer);
        waiters.delete(wake);
        signal.removeEventListener('abort', aborted);
        resolve(result);
      };
      const wake = (): void => void look();
      const aborted = (): void => done(undefined);
      const timer = setTimeout(aborted, Math.max(0, timeoutMs));
      waiters.add(wake);
      signal.addEventListener('abort', aborted, { once: true });
      look();
    });
  return {
    recorded,
    mark: () => recorded.length,
    seen,
    close: () => void events.off('event', record),
  };
}
