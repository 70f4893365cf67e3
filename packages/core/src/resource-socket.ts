import { unlink } from 'node:fs/promises';
import type { Device } from '@kdp/api';
import { waitDialable } from '@kdp/base';
import { createResourceServer, type ResourceServer } from './resource-server';
import type { ServedResource } from './served-resource';
import { sameSocket, socketIdentity, type SocketIdentity } from './socket-identity';
import type { StopGate } from './stop-gate';

/** The kubelet's verdict on a plugin-watcher registration (P-36). */
export interface WatcherStatus {
  readonly registered: boolean;
  readonly error: string;
}

/** What {@link createResourceSocket} serves and where it reports. */
export interface ResourceSocketOptions<P> extends ServedResource<P> {
  readonly socketPath: string;
  readonly mode: 'kubelet' | 'plugin-watcher';
  /** Grace period of the server a rebind replaces. */
  readonly shutdownTimeoutMs: number;
  readonly gate: StopGate;
  /** A ListAndWatch stream of the current server ended. */
  readonly onStreamClosed: () => void;
  /** The kubelet reported on the plugin-watcher registration of the current server. */
  readonly onWatcherStatus: () => void;
}

/** The served socket of one resource: the current server generation, the socket file it bound, its verdict. */
export interface ResourceSocket {
  /** P-21/P-22: stops the old server (the kubelet's old stream ends), unlinks, binds anew, checks it is dialable. */
  rebind(): Promise<void>;
  /** Shuts the current server down (after a last message, if given) within `graceMs`. */
  close(graceMs: number, lastMessage?: Device[]): Promise<void>;
  server(): ResourceServer | undefined;
  /** The socket file the current server bound. */
  bound(): SocketIdentity | undefined;
  /** The kubelet's verdict on the current server (plugin-watcher mode), once it came. */
  watcherStatus(): WatcherStatus | undefined;
}

/** Creates the served socket of one resource; nothing is bound until `rebind`. */
export function createResourceSocket<P>(options: ResourceSocketOptions<P>): ResourceSocket {
  const { socketPath, clock, gate } = options;
  let server: ResourceServer | undefined;
  let bound: SocketIdentity | undefined;
  let watcherStatus: WatcherStatus | undefined;

  const close = async (graceMs: number, lastMessage?: Device[]): Promise<void> => {
    const old = server;
    server = undefined;
    bound = undefined;
    if (old === undefined) return;
    await old.shutdown(graceMs, lastMessage);
  };

  const rebind = async (): Promise<void> => {
    // Not awaited: the old listener closes at once (its streams end first); in-flight calls get the grace period.
    void close(options.shutdownTimeoutMs);
    await unlink(socketPath).catch(() => undefined);
    gate.guard();
    const next = createResourceServer({
      declaration: options.declaration,
      store: options.store,
      clock,
      logger: options.logger,
      emit: options.emit,
      transform: options.transform,
      onStreamClosed: () => {
        if (server === next) options.onStreamClosed();
      },
      ...(options.mode === 'plugin-watcher'
        ? {
            pluginWatcher: {
              endpoint: socketPath,
              onStatus: (registered: boolean, error: string) => {
                if (server !== next) return;
                watcherStatus = { registered, error };
                options.onWatcherStatus();
              },
            },
          }
        : {}),
    });
    server = next;
    watcherStatus = undefined;
    try {
      await next.bind(socketPath);
      const created = await socketIdentity(socketPath);
      await waitDialable(socketPath, clock, async () =>
        sameSocket(await socketIdentity(socketPath), created),
      );
      bound = created;
    } catch (error) {
      await close(0);
      throw error;
    }
    gate.guard();
  };

  return {
    rebind,
    close,
    server: () => server,
    bound: () => bound,
    watcherStatus: () => watcherStatus,
  };
}
