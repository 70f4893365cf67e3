/** A typed broadcast of events with both a listener and an async-iterator view. */
export interface EventHub<E> {
  emit(event: E): void;
  /** Calls `listener` for every later event; returns the unsubscribe function. */
  subscribe(listener: (event: E) => void): () => void;
  /** Iterates every later event until `signal` aborts or {@link EventHub.close} is called. */
  iterate(signal?: AbortSignal): AsyncIterableIterator<E>;
  /** Ends every iterator. */
  close(): void;
}

/** Creates an event hub; a throwing listener is isolated from the others and from the emitter. */
export function createEventHub<E>(onListenerError?: (error: unknown) => void): EventHub<E> {
  const listeners = new Set<(event: E) => void>();
  const closers = new Set<() => void>();
  let closed = false;
  const hub: EventHub<E> = {
    emit(event) {
      for (const listener of [...listeners]) {
        try {
          listener(event);
        } catch (error) {
          onListenerError?.(error);
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    iterate(signal) {
      const queue: E[] = [];
      let wake: (() => void) | undefined;
      let done = closed || signal?.aborted === true;
      const finish = (): void => {
        done = true;
        unsubscribe();
        closers.delete(finish);
        signal?.removeEventListener('abort', finish);
        wake?.();
      };
      const unsubscribe = hub.subscribe((event) => {
        queue.push(event);
        wake?.();
      });
      closers.add(finish);
      signal?.addEventListener('abort', finish, { once: true });
      if (done) finish();
      const iterator: AsyncIterableIterator<E> = {
        async next() {
          while (queue.length === 0 && !done) await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
          const event = queue.shift();
          return event === undefined ? { done: true, value: undefined } : { done: false, value: event };
        },
        async return() {
          finish();
          return { done: true, value: undefined };
        },
        [Symbol.asyncIterator]: () => iterator,
      };
      return iterator;
    },
    close() {
      closed = true;
      for (const finish of [...closers]) finish();
    },
  };
  return hub;
}
