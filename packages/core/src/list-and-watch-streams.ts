import type { ServerWritableStream } from '@grpc/grpc-js';
import type { Device } from '@kdp/api';
import type { Clock, LifecycleLogger } from '@kdp/base';
import type { DeviceStore } from './device-store';
import type { DevicePluginEvent } from './plugin-events';

/** A ListAndWatch call of either API version, as the server writes to it. */
export type ListAndWatchCall = ServerWritableStream<unknown, { devices: unknown[] }>;

/** What {@link createListAndWatchStreams} needs: the store to follow and where to report. */
export interface ListAndWatchStreamsOptions<P> {
  readonly resource: string;
  readonly store: DeviceStore<P>;
  readonly clock: Clock;
  readonly logger: LifecycleLogger;
  readonly emit: (event: DevicePluginEvent) => void;
  /** Called whenever a stream ends. */
  readonly onStreamClosed: () => void;
}

/** The ListAndWatch streams of one server generation. */
export interface ListAndWatchStreams {
  /** Sends the current list at once (P-12) and every change after it, until the call ends. */
  serve(call: ListAndWatchCall, convert: (devices: Device[]) => unknown[]): void;
  /** Streams open now. */
  open(): number;
  /** Streams ever opened. */
  opened(): number;
  /** Ends every open stream, after a last message when given. */
  endAll(lastMessage?: Device[]): void;
}

/** Creates the stream set of one server generation; each stream follows the store until it ends. */
export function createListAndWatchStreams<P>(options: ListAndWatchStreamsOptions<P>): ListAndWatchStreams {
  const { resource, store, clock, logger, emit } = options;
  const streams = new Set<ListAndWatchCall>();
  let opened = 0;
  return {
    serve(call, convert) {
      streams.add(call);
      opened += 1;
      emit({ type: 'stream-opened', resource, at: clock.now(), open: streams.size });
      logger.debug({ resource, open: streams.size }, 'ListAndWatch stream opened');
      const send = (devices: Device[]): void => {
        try {
          call.write({ devices: convert(devices) });
        } catch (error) {
          logger.warn({ resource, err: error }, 'ListAndWatch write failed');
        }
      };
      send(store.snapshot()); // P-12: the first message at once.
      const unsubscribe = store.subscribe(send);
      let closed = false;
      const close = (): void => {
        if (closed) return;
        closed = true;
        unsubscribe();
        streams.delete(call);
        emit({ type: 'stream-closed', resource, at: clock.now(), open: streams.size });
        logger.debug({ resource, open: streams.size }, 'ListAndWatch stream closed');
        options.onStreamClosed();
      };
      for (const event of ['cancelled', 'error', 'finish', 'close']) call.on(event, close);
    },
    open: () => streams.size,
    opened: () => opened,
    endAll(lastMessage) {
      for (const call of [...streams]) {
        try {
          if (lastMessage !== undefined) call.write({ devices: lastMessage });
          call.end();
        } catch {
          // The stream is already gone.
        }
      }
    },
  };
}
