import { chmod } from 'node:fs/promises';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { DevicePluginService, pluginregistration, v1alpha, type Device } from '@kdp/api';
import { GRPC_CHANNEL_OPTIONS } from './grpc-channel-options';
import { createAllocateHandler } from './allocate-handler';
import { createListAndWatchStreams } from './list-and-watch-streams';
import { createPluginWatcherService, type PluginWatcherRegistration } from './plugin-watcher-service';
import type { ServedResource } from './served-resource';
import { createV1alphaService } from './v1alpha-service';
import { createV1beta1Service } from './v1beta1-service';

/** How a server generation reports back to its resource's lifecycle. */
export interface ResourceServerOptions<P> extends ServedResource<P> {
  /** Called whenever a ListAndWatch stream of this server ends. */
  readonly onStreamClosed: () => void;
  /** HTTP/2 keepalive pings on every connection; default {@link CONNECTION_KEEPALIVE}. */
  readonly keepalive?: ConnectionKeepalive;
  /** Plugin-watcher mode: the socket also serves pluginregistration.Registration (P-36). */
  readonly pluginWatcher?: PluginWatcherRegistration;
}

/** HTTP/2 keepalive of a server's connections: a ping after `timeMs` without one, answered within `timeoutMs`. */
export interface ConnectionKeepalive {
  readonly timeMs: number;
  readonly timeoutMs: number;
}

/**
 * Every connection is pinged after 20 s and dropped when the ping goes unanswered for 10 s. Node's HTTP/2 server
 * never closes a connection it answered a protocol error on (a GOAWAY, e.g. for a DATA frame on stream 0), not
 * even once the peer is gone, so each such connection would hold a file descriptor for good; the keepalive
 * reaps them. The kubelet's client (grpc-go) answers pings at once, and a kubelet that has not for 10 s has lost
 * the connection anyway.
 */
export const CONNECTION_KEEPALIVE: ConnectionKeepalive = { timeMs: 20_000, timeoutMs: 10_000 };

/** One gRPC server generation of one resource: created, bound once, shut down once (P-21: never reused). */
export interface ResourceServer {
  bind(path: string): Promise<void>;
  /** Open ListAndWatch streams. */
  openStreams(): number;
  /** Streams ever opened on this server. */
  streamsOpened(): number;
  /** Ends every stream (after a last message, if given), then shuts the server down within `graceMs`. */
  shutdown(graceMs: number, lastMessage?: Device[]): Promise<void>;
}

/** Creates the server for one generation of a resource: v1beta1 and v1alpha device-plugin services. */
export function createResourceServer<P>(options: ResourceServerOptions<P>): ResourceServer {
  const { declaration, store, clock } = options;
  const keepalive = options.keepalive ?? CONNECTION_KEEPALIVE;
  const server = new Server({
    ...GRPC_CHANNEL_OPTIONS,
    'grpc.max_receive_message_length': 4 * 1024 * 1024,
    'grpc.keepalive_time_ms': keepalive.timeMs,
    'grpc.keepalive_timeout_ms': keepalive.timeoutMs,
  });
  const streams = createListAndWatchStreams({
    resource: declaration.name,
    store,
    clock,
    logger: options.logger,
    emit: options.emit,
    onStreamClosed: options.onStreamClosed,
  });
  const allocate = createAllocateHandler(options);
  server.addService(DevicePluginService, createV1beta1Service({ declaration, store, streams, allocate }));
  server.addService(
    v1alpha.DevicePluginService,
    createV1alphaService({ resource: declaration.name, streams, allocate }),
  );
  if (options.pluginWatcher !== undefined) {
    server.addService(
      pluginregistration.RegistrationService,
      createPluginWatcherService(declaration.name, options.pluginWatcher),
    );
  }

  let shutdownPromise: Promise<void> | undefined;
  return {
    bind: (path) =>
      new Promise<void>((resolve, reject) =>
        server.bindAsync(`unix://${path}`, ServerCredentials.createInsecure(), (error) => {
          if (error) return reject(error);
          // Owner-only access; the kubelet runs as root (least privilege, see README).
          chmod(path, 0o600).then(resolve, reject);
        }),
      ),
    openStreams: () => streams.open(),
    streamsOpened: () => streams.opened(),
    shutdown(graceMs, lastMessage) {
      shutdownPromise ??= new Promise<void>((resolve) => {
        streams.endAll(lastMessage);
        const timer = clock.setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clock.clearTimeout(timer);
          resolve();
        });
      });
      return shutdownPromise;
    },
  };
}
