import { chmod } from 'node:fs/promises';
import { Server, ServerCredentials, type ServerWritableStream } from '@grpc/grpc-js';
import {
  DevicePluginService,
  DevicePluginType,
  Unhealthy,
  Version,
  pluginregistration,
  v1alpha,
  type Device,
  type DevicePluginServer,
} from '@kdp/api';
import { allocateContainers, type AllocationTransform } from './allocate-containers';
import type { Clock } from '@kdp/base';
import { Code } from './code';
import { DevicePluginError, toGrpcError } from './device-plugin-error';
import type { DeviceStore } from './device-store';
import type { LifecycleLogger } from '@kdp/base';
import type { DevicePluginEvent } from './plugin-events';
import { preferredAllocation } from './preferred-allocation';
import type { ResourceDeclaration } from './resource-declaration';

/** How a server generation reports back to its resource's lifecycle. */
export interface ResourceServerOptions<P> {
  readonly declaration: ResourceDeclaration<P>;
  readonly store: DeviceStore<P>;
  readonly clock: Clock;
  readonly logger: LifecycleLogger;
  readonly emit: (event: DevicePluginEvent) => void;
  readonly transform?: AllocationTransform | undefined;
  /** Called whenever a ListAndWatch stream of this server ends. */
  readonly onStreamClosed: () => void;
  /** HTTP/2 keepalive pings on every connection; default {@link CONNECTION_KEEPALIVE}. */
  readonly keepalive?: ConnectionKeepalive;
  /** Plugin-watcher mode: the socket also serves pluginregistration.Registration (P-36). */
  readonly pluginWatcher?: {
    readonly endpoint: string;
    readonly onStatus: (registered: boolean, error: string) => void;
  };
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

type Stream = ServerWritableStream<unknown, { devices: unknown[] }>;

/** Creates the server for one generation of a resource: v1beta1 and v1alpha device-plugin services. */
export function createResourceServer<P>(options: ResourceServerOptions<P>): ResourceServer {
  const { declaration, store, clock, logger, emit } = options;
  const resource = declaration.name;
  const streams = new Set<Stream>();
  let opened = 0;
  const keepalive = options.keepalive ?? CONNECTION_KEEPALIVE;
  const server = new Server({
    'grpc.max_receive_message_length': 4 * 1024 * 1024,
    'grpc.keepalive_time_ms': keepalive.timeMs,
    'grpc.keepalive_timeout_ms': keepalive.timeoutMs,
  });

  const serveStream = (call: Stream, convert: (devices: Device[]) => unknown[]): void => {
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
  };

  const runAllocate = async (request: Parameters<typeof allocateContainers<P>>[2], signal: AbortSignal) => {
    const started = clock.now();
    const ids = (Array.isArray(request?.containerRequests) ? request.containerRequests : []).flatMap((c) =>
      Array.isArray(c?.devicesIds) ? c.devicesIds.slice(0, 64) : [],
    );
    try {
      const response = await allocateContainers(
        declaration,
        store.devices(),
        request,
        signal,
        options.transform,
      );
      emit({
        type: 'allocate',
        resource,
        at: clock.now(),
        outcome: 'ok',
        durationMs: clock.now() - started,
        containers: response.containerResponses.length,
        deviceIds: ids,
      });
      return response;
    } catch (error) {
      const grpc = toGrpcError(error, `Allocate for ${resource} failed`);
      emit({
        type: 'allocate',
        resource,
        at: clock.now(),
        outcome: 'error',
        durationMs: clock.now() - started,
        containers: request?.containerRequests?.length ?? 0,
        deviceIds: ids,
        code: grpc.code,
        message: grpc.details,
      });
      logger.warn({ resource, code: grpc.code, message: grpc.details }, 'Allocate failed');
      throw error;
    }
  };

  const cancellation = (call: { on(event: 'cancelled', fn: () => void): unknown }): AbortSignal => {
    const controller = new AbortController();
    call.on('cancelled', () => controller.abort());
    return controller.signal;
  };

  const reply = <T>(
    work: () => Promise<T>,
    context: string,
    callback: (error: ReturnType<typeof toGrpcError> | null, value?: T) => void,
  ): void => {
    work().then(
      (value) => callback(null, value),
      (error: unknown) => callback(toGrpcError(error, context)),
    );
  };

  const v1beta1: DevicePluginServer = {
    getDevicePluginOptions: (_call, callback) =>
      callback(null, {
        preStartRequired: declaration.options?.preStartRequired === true,
        getPreferredAllocationAvailable: declaration.options?.getPreferredAllocationAvailable === true,
      }),
    listAndWatch: (call) => serveStream(call as unknown as Stream, (devices) => devices),
    getPreferredAllocation: (call, callback) =>
      reply(
        () => preferredAllocation(declaration, store.devices(), call.request),
        `GetPreferredAllocation for ${resource} failed`,
        callback,
      ),
    allocate: (call, callback) =>
      reply(() => runAllocate(call.request, cancellation(call)), `Allocate for ${resource} failed`, callback),
    preStartContainer: (call, callback) =>
      reply(
        async () => {
          const hook = declaration.preStartContainer;
          if (hook === undefined) return {};
          const ids: string[] = Array.isArray(call.request?.devicesIds) ? call.request.devicesIds : [];
          const known = store.devices();
          const devices = ids.flatMap((id) => {
            const device = known.get(id);
            return device ? [device] : [];
          });
          const unknownIds = ids.filter((id) => !known.has(id));
          await hook({ resource, devices, unknownIds, signal: cancellation(call) });
          return {};
        },
        `preStartContainer hook for ${resource} failed`,
        callback,
      ),
  };
  server.addService(DevicePluginService, v1beta1);

  // The old API (P-1.4): one container per Allocate, a flat response, no topology and no CDI.
  const v1alphaServer: v1alpha.DevicePluginServer = {
    listAndWatch: (call) =>
      serveStream(call as unknown as Stream, (devices) =>
        devices.map((d) => ({ ID: d.ID, health: d.health })),
      ),
    allocate: (call, callback) =>
      reply(
        async () => {
          const ids = Array.isArray(call.request?.devicesIDs) ? call.request.devicesIDs : [];
          const response = await runAllocate(
            { containerRequests: [{ devicesIds: ids }] },
            cancellation(call),
          );
          const first = response.containerResponses[0];
          if (first === undefined)
            throw new DevicePluginError(Code.Internal, `Allocate for ${resource}: no response`);
          return {
            envs: first.envs,
            mounts: first.mounts,
            devices: first.devices,
            annotations: first.annotations,
          };
        },
        `Allocate for ${resource} failed`,
        callback,
      ),
  };
  server.addService(v1alpha.DevicePluginService, v1alphaServer);

  const watcher = options.pluginWatcher;
  if (watcher !== undefined) {
    const registration: pluginregistration.RegistrationServer = {
      getInfo: (_call, callback) =>
        callback(null, {
          type: DevicePluginType,
          name: resource,
          endpoint: watcher.endpoint,
          supportedVersions: [Version],
        }),
      notifyRegistrationStatus: (call, callback) => {
        callback(null, {});
        watcher.onStatus(call.request?.pluginRegistered === true, call.request?.error ?? '');
      },
    };
    server.addService(pluginregistration.RegistrationService, registration);
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
    openStreams: () => streams.size,
    streamsOpened: () => opened,
    shutdown(graceMs, lastMessage) {
      shutdownPromise ??= new Promise<void>((resolve) => {
        for (const call of [...streams]) {
          try {
            if (lastMessage !== undefined) call.write({ devices: lastMessage });
            call.end();
          } catch {
            // The stream is already gone.
          }
        }
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

/** The device list a shutting-down plugin may send last: everything unhealthy, or nothing. */
export function shutdownAdvertisement(
  mode: 'none' | 'empty' | 'unhealthy',
  snapshot: Device[],
): Device[] | undefined {
  if (mode === 'empty') return [];
  if (mode === 'unhealthy') return snapshot.map((d) => ({ ...d, health: Unhealthy }));
  return undefined;
}
