import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  credentials,
  Metadata,
  Server,
  type ServerWritableStream,
  status,
  type ServiceError,
} from '@grpc/grpc-js';
import {
  type ContainerAllocateResponse,
  type Device,
  type DevicePluginOptions,
  type DevicePluginServer,
  DevicePluginService,
  DevicePluginType,
  Healthy,
  KubeletSocketName,
  type ListAndWatchResponse,
  RegistrationClient,
  pluginregistration,
  Unhealthy,
  v1alpha,
} from '@kdp/api';
import { bindUnix, pluginChannelOptions, rpcError, stopServer } from '../grpc-util';

/**
 * Options of {@link createTestPlugin}. The defaults make a well-behaved plugin; each other setting breaks one
 * rule of the kubelet protocol, so conformance tests can check that the suite notices.
 */
export interface TestPluginOptions {
  readonly dir: string;
  /** Default `example.com/dev`. */
  readonly resource?: string;
  /** Socket file name in `dir`; default a random `tp-….sock`. */
  readonly endpoint?: string;
  /** Default: four healthy devices, two on NUMA node 0 and two on node 1. */
  readonly devices?: Device[];
  /** What GetDevicePluginOptions returns; default both capabilities on. */
  readonly options?: DevicePluginOptions;
  /** What RegisterRequest.options says; default the same as `options`. */
  readonly registerOptions?: DevicePluginOptions;
  /** RegisterRequest.version; default `v1beta1`. */
  readonly version?: string;
  /** Register with the old v1alpha API (`deviceplugin.Registration`) instead. */
  readonly api?: 'v1beta1' | 'v1alpha2';
  /** Register first and only start serving this many ms later (a wrong order). */
  readonly serveAfterRegisterMs?: number;
  /** Delay before the first ListAndWatch message. */
  readonly firstListDelayMs?: number;
  /**
   * On every stream but the first, list every device Unhealthy and the real health only this many ms later
   * (a plugin whose health probe starts over when it registers again).
   */
  readonly unhealthyAfterReregisterMs?: number;
  /** Right after the first message, send one with only the first device (a delta, not a full list). */
  readonly deltaUpdates?: boolean;
  /** How Allocate answers N container requests: one response each (default), only one, none, or an error. */
  readonly allocate?: 'per-request' | 'single' | 'none' | 'error';
  /** Allocate IDs it does not know without an error. */
  readonly acceptUnknownIds?: boolean;
  /** Stop serving when Allocate gets an unknown ID (a plugin that crashes on bad input). */
  readonly dieOnUnknownIds?: boolean;
  /**
   * How GetPreferredAllocation answers: correctly, ignoring must_include, with the wrong size, with IDs that
   * are not available, or with an error.
   */
  readonly preferred?: 'correct' | 'ignore-must-include' | 'wrong-size' | 'unavailable-ids' | 'error';
  /** How PreStartContainer answers: at once, never, or with an error. */
  readonly preStart?: 'ok' | 'hang' | 'error';
  /**
   * Plugin-watcher mode (P-36): serve the socket in this directory with the pluginregistration service as
   * well, and never call Register; the kubelet finds the socket itself.
   */
  readonly pluginsRegistryDir?: string;
  /** Plugin-watcher GetInfo type; default `DevicePlugin`. */
  readonly pluginType?: string;
  /** Re-register after a kubelet restart or a dropped stream: at once (default), after a delay in ms, or never. */
  readonly reregister?: 'immediately' | 'never' | number;
  /**
   * Also re-register when the kubelet ends the ListAndWatch stream (default true). False is the documented
   * contract only, as NVIDIA's plugin follows it: re-register when the socket is deleted or `kubelet.sock`
   * is created again.
   */
  readonly reregisterOnStreamEnd?: boolean;
}

/** A small device plugin written against raw @grpc/grpc-js, for testing the simulator and the conformance suite. */
export interface TestPlugin {
  readonly resource: string;
  readonly endpoint: string;
  readonly socketPath: string;
  /** Successful Register calls so far. */
  readonly registrations: number;
  /** The NotifyRegistrationStatus calls received (plugin-watcher mode). */
  readonly registrationStatus: pluginregistration.RegistrationStatus[];
  /** Resolves once `count` NotifyRegistrationStatus calls arrived; rejects after `timeoutMs`. */
  statusReceived(count: number, timeoutMs?: number): Promise<pluginregistration.RegistrationStatus[]>;
  /** Replaces the device list and sends it on every open stream. */
  setDevices(devices: Device[]): void;
  /** Stops serving, unlinks the socket and stops re-registering (what a plugin does on SIGTERM). */
  stop(): Promise<void>;
}

/** The default devices: `dev-0`…`dev-3`, healthy, two per NUMA node. */
export function defaultTestDevices(): Device[] {
  return [0, 1, 2, 3].map((i) => ({
    ID: `dev-${i}`,
    health: Healthy,
    topology: { nodes: [{ ID: i < 2 ? 0 : 1 }] },
  }));
}

const emptyResponse = (ids: readonly string[]): ContainerAllocateResponse => ({
  envs: { TEST_DEVICES: ids.join(',') },
  mounts: [],
  devices: ids.map((id) => ({ containerPath: `/dev/${id}`, hostPath: `/dev/${id}`, permissions: 'rw' })),
  annotations: {},
  cdiDevices: [],
});

/** Starts a test plugin in `dir`: serves its socket, registers, and keeps re-registering as a good plugin does. */
export async function createTestPlugin(options: TestPluginOptions): Promise<TestPlugin> {
  const resource = options.resource ?? 'example.com/dev';
  const endpoint = options.endpoint ?? `tp-${randomBytes(4).toString('hex')}.sock`;
  const socketPath = join(options.pluginsRegistryDir ?? options.dir, endpoint);
  const registrationStatus: pluginregistration.RegistrationStatus[] = [];
  const statusWaiters = new Set<() => void>();
  const kubeletSocket = join(options.dir, KubeletSocketName);
  const pluginOptions = options.options ?? { preStartRequired: true, getPreferredAllocationAvailable: true };
  const reregister = options.reregister ?? 'immediately';
  let devices = options.devices ?? defaultTestDevices();
  let server: Server | undefined;
  let stopped = false;
  let registrations = 0;
  /** Bumped on every Register attempt; a stream opened before the latest one is stale. */
  let registerGeneration = 0;
  const streams = new Set<{ write(m: ListAndWatchResponse): unknown }>();
  let kubeletInode: number | undefined;
  /** ListAndWatch streams opened so far. */
  let streamCount = 0;
  let registering = false;
  let needsRegister = true;

  const isKnown = (id: string): boolean => devices.some((d) => d.ID === id);

  const listAndWatch = (call: ServerWritableStream<unknown, ListAndWatchResponse>): void => {
    const generation = registerGeneration;
    const send = { write: (m: ListAndWatchResponse) => call.write(m) };
    const stream = (streamCount += 1);
    const start = (): void => {
      if (call.cancelled) return;
      streams.add(send);
      if (stream > 1 && options.unhealthyAfterReregisterMs !== undefined) {
        call.write({ devices: devices.map((d) => ({ ...d, health: Unhealthy })) });
        setTimeout(() => {
          if (!call.cancelled) call.write({ devices });
        }, options.unhealthyAfterReregisterMs).unref();
        return;
      }
      call.write({ devices });
      if (options.deltaUpdates && devices[0] !== undefined) {
        // Right behind the full list, so the delta arrives however loaded the machine is.
        call.write({ devices: [{ ...devices[0], health: Unhealthy }] });
      }
    };
    if (options.firstListDelayMs === undefined) start();
    else setTimeout(start, options.firstListDelayMs).unref();
    call.on('cancelled', () => {
      streams.delete(send);
      // Only the stream of the latest registration counts: the kubelet closes older ones itself.
      if (generation === registerGeneration && options.reregisterOnStreamEnd !== false) scheduleRegister();
    });
  };

  const implementation: DevicePluginServer = {
    getDevicePluginOptions: (_call, callback) => callback(null, pluginOptions),
    listAndWatch,
    getPreferredAllocation: (call, callback) => {
      if (options.preferred === 'error') {
        callback(rpcError(status.INTERNAL, 'topology unknown'));
        return;
      }
      const containerResponses = call.request.containerRequests.map((r) => {
        const mode = options.preferred ?? 'correct';
        if (mode === 'unavailable-ids') return { deviceIDs: ['no-such-device'] };
        const pool =
          mode === 'ignore-must-include'
            ? r.availableDeviceIDs.filter((id) => !r.mustIncludeDeviceIDs.includes(id))
            : [
                ...r.mustIncludeDeviceIDs,
                ...r.availableDeviceIDs.filter((id) => !r.mustIncludeDeviceIDs.includes(id)),
              ];
        const size = mode === 'wrong-size' ? r.allocationSize + 1 : r.allocationSize;
        return { deviceIDs: pool.slice(0, size) };
      });
      callback(null, { containerResponses });
    },
    allocate: (call, callback) => {
      const requests = call.request.containerRequests;
      const unknown = requests.flatMap((r) => r.devicesIds).filter((id) => !isKnown(id));
      if (unknown.length > 0 && !options.acceptUnknownIds) {
        if (options.dieOnUnknownIds) {
          void stopServing();
          return;
        }
        callback(rpcError(status.INVALID_ARGUMENT, `unknown device IDs: ${unknown.join(', ')}`));
        return;
      }
      if (options.allocate === 'error') {
        callback(rpcError(status.INTERNAL, 'device is busy'));
        return;
      }
      const selected =
        options.allocate === 'none' ? [] : options.allocate === 'single' ? requests.slice(0, 1) : requests;
      callback(null, { containerResponses: selected.map((r) => emptyResponse(r.devicesIds)) });
    },
    preStartContainer: (_call, callback) => {
      if (options.preStart === 'hang') return;
      if (options.preStart === 'error') {
        callback(rpcError(status.INTERNAL, 'device reset failed'));
        return;
      }
      callback(null, {});
    },
  };

  const v1alphaImplementation: v1alpha.DevicePluginServer = {
    listAndWatch: (call) =>
      listAndWatch(call as unknown as ServerWritableStream<unknown, ListAndWatchResponse>),
    allocate: (call, callback) =>
      callback(null, {
        ...emptyResponse(call.request.devicesIDs),
        cdiDevices: undefined,
      } as v1alpha.AllocateResponse),
  };

  const serve = async (): Promise<void> => {
    const next = new Server();
    if (options.api === 'v1alpha2') next.addService(v1alpha.DevicePluginService, v1alphaImplementation);
    else next.addService(DevicePluginService, implementation);
    if (options.pluginsRegistryDir !== undefined) {
      next.addService(pluginregistration.RegistrationService, {
        getInfo: (_call, callback) =>
          callback(null, {
            type: options.pluginType ?? DevicePluginType,
            name: resource,
            endpoint: '',
            supportedVersions: [options.version ?? 'v1beta1'],
          }),
        notifyRegistrationStatus: (call, callback) => {
          registrationStatus.push(call.request);
          callback(null, {});
          for (const waiter of [...statusWaiters]) waiter();
        },
      } satisfies pluginregistration.RegistrationServer);
    }
    await bindUnix(next, socketPath);
    if (stopped) {
      await stopServer(next);
      return;
    }
    server = next;
  };

  let rebinding: Promise<void> | undefined;
  /** Binds again when the socket file was deleted (a kubelet restart, P-2), before any Register. */
  const ensureServing = (): Promise<void> => {
    if (server === undefined || existsSync(socketPath)) return rebinding ?? Promise.resolve();
    rebinding ??= (async () => {
      await stopServing();
      await serve();
    })().finally(() => {
      rebinding = undefined;
    });
    return rebinding;
  };

  const stopServing = async (): Promise<void> => {
    const current = server;
    server = undefined;
    streams.clear();
    if (current !== undefined) await stopServer(current);
  };

  const registerOnce = (): Promise<void> =>
    new Promise((resolve, reject) => {
      registerGeneration += 1;
      const address = `unix://${kubeletSocket}`;
      const done = (err: ServiceError | null): void => (err ? reject(err) : resolve());
      const deadline = { deadline: Date.now() + 15_000 };
      if (options.api === 'v1alpha2') {
        const client = new v1alpha.RegistrationClient(
          address,
          credentials.createInsecure(),
          pluginChannelOptions,
        );
        client.register(
          { version: options.version ?? 'v1alpha2', endpoint, resourceName: resource },
          new Metadata(),
          deadline,
          (err: ServiceError | null) => {
            client.close();
            done(err);
          },
        );
        return;
      }
      const client = new RegistrationClient(address, credentials.createInsecure(), pluginChannelOptions);
      client.register(
        {
          version: options.version ?? 'v1beta1',
          endpoint,
          resourceName: resource,
          options: options.registerOptions ?? pluginOptions,
        },
        new Metadata(),
        deadline,
        (err: ServiceError | null) => {
          client.close();
          done(err);
        },
      );
    });

  /** Registers, retrying until the kubelet accepts (it may not be up yet). */
  const register = async (): Promise<void> => {
    if (registering || options.pluginsRegistryDir !== undefined) return;
    registering = true;
    try {
      while (!stopped && needsRegister) {
        needsRegister = false;
        try {
          if (!existsSync(kubeletSocket)) throw new Error('kubelet.sock missing');
          kubeletInode = statSync(kubeletSocket).ino;
          await ensureServing();
          await registerOnce();
          registrations += 1;
        } catch {
          needsRegister = true;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    } finally {
      registering = false;
    }
  };

  const scheduleRegister = (): void => {
    if (stopped || reregister === 'never') return;
    const go = (): void => {
      needsRegister = true;
      void register();
    };
    if (typeof reregister === 'number') setTimeout(go, reregister);
    else go();
  };

  // A kubelet restart deletes our socket and recreates kubelet.sock (P-2, P-3): rebind, then register again.
  // In plugin-watcher mode the kubelet never deletes the socket: removing it means deregistering (P-36).
  const poll = setInterval(() => {
    if (stopped || reregister === 'never' || options.pluginsRegistryDir !== undefined) return;
    const ownGone = server !== undefined && !existsSync(socketPath);
    let kubeletChanged = false;
    try {
      kubeletChanged = kubeletInode !== undefined && statSync(kubeletSocket).ino !== kubeletInode;
    } catch {
      kubeletChanged = false;
    }
    if (!ownGone && !kubeletChanged) return;
    kubeletInode = undefined;
    // A failed bind is retried on the next tick.
    ensureServing().then(scheduleRegister, () => undefined);
  }, 100);
  poll.unref();

  if (options.serveAfterRegisterMs === undefined) {
    await serve();
    void register();
  } else {
    void register();
    setTimeout(() => void serve().catch(() => undefined), options.serveAfterRegisterMs);
  }

  return {
    resource,
    endpoint,
    socketPath,
    get registrations() {
      return registrations;
    },
    registrationStatus,
    statusReceived: (count, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (registrationStatus.length < count) return;
          statusWaiters.delete(check);
          clearTimeout(timer);
          resolve([...registrationStatus]);
        };
        const timer = setTimeout(() => {
          statusWaiters.delete(check);
          reject(
            new Error(`test plugin: ${count} registration status call(s) not received in ${timeoutMs} ms`),
          );
        }, timeoutMs);
        statusWaiters.add(check);
        check();
      }),
    setDevices: (next) => {
      devices = next;
      for (const stream of streams) stream.write({ devices });
    },
    stop: async () => {
      stopped = true;
      clearInterval(poll);
      // A rebind in flight must finish (and see `stopped`) before the socket is released.
      await rebinding?.catch(() => undefined);
      await stopServing();
    },
  };
}
