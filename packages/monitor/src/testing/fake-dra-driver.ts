import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  Server,
  ServerCredentials,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServerWritableStream,
} from '@grpc/grpc-js';
import { draHealthV1, draHealthV1alpha1, draV1, pluginregistration } from '@kdp/api';

/** Options of {@link startFakeDraDriver}. */
export interface FakeDraDriverOptions {
  /** The DRA plugins directory: the socket is `<pluginsDir>/<driver>/<socketName>`. */
  readonly pluginsDir: string;
  readonly driver: string;
  /** Default `dra.sock`. */
  readonly socketName?: string;
  /** The health services served; default both. */
  readonly healthServices?: ReadonlyArray<'v1alpha1' | 'v1'>;
  /** With a plugin-watcher directory the driver registers there and prepares claims (DRAPlugin v1). */
  readonly registryDir?: string;
  /** The pool of the devices it prepares; default `node-a`. */
  readonly pool?: string;
  /** The devices it answers for each claim, by claim name. */
  readonly claimDevices?: Readonly<Record<string, readonly string[]>>;
}

/** One device's health as {@link FakeDraDriver.sendHealth} sends it. */
export interface FakeHealth {
  readonly pool: string;
  readonly device: string;
  readonly health: draHealthV1alpha1.HealthStatus;
  /** Unix seconds. */
  readonly at: number;
  readonly timeoutSeconds?: number;
}

/** Test double of a DRA driver's sockets: the health services and, when registered, DRAPlugin v1. */
export interface FakeDraDriver {
  readonly socketPath: string;
  /** The health streams open now, by service. */
  openStreams(): string[];
  /** Resolves once `count` health streams are open. */
  streamsOpen(count: number): Promise<void>;
  /** Sends the full device list on every open stream. */
  sendHealth(devices: readonly FakeHealth[]): void;
  /** Ends every open stream (the driver's side). */
  endStreams(): void;
  close(): Promise<void>;
}

const bind = (server: Server, socket: string): Promise<void> =>
  new Promise((resolve, reject) =>
    server.bindAsync(`unix://${socket}`, ServerCredentials.createInsecure(), (error) =>
      error ? reject(error) : resolve(),
    ),
  );

/** Prepares every claim with its devices of `claimDevices`, CDI ID `<driver>/dev=<device>`. */
function prepareAnswer(
  driver: string,
  pool: string,
  claimDevices: Readonly<Record<string, readonly string[]>>,
) {
  return (
    call: ServerUnaryCall<draV1.NodePrepareResourcesRequest, draV1.NodePrepareResourcesResponse>,
    callback: sendUnaryData<draV1.NodePrepareResourcesResponse>,
  ): void => {
    const claims: draV1.NodePrepareResourcesResponse['claims'] = {};
    for (const claim of call.request.claims) {
      const devices = claimDevices[claim.name] ?? [];
      claims[claim.uid] = {
        devices: devices.map((device) => ({
          requestNames: ['gpu'],
          poolName: pool,
          deviceName: device,
          cdiDeviceIds: [`${driver}/dev=${device}`],
        })),
        error: '',
      };
    }
    callback(null, { claims });
  };
}

/** Starts the fake driver; its registration socket (if any) appears last, as a real driver's. */
export async function startFakeDraDriver(options: FakeDraDriverOptions): Promise<FakeDraDriver> {
  const dir = join(options.pluginsDir, options.driver);
  mkdirSync(dir, { recursive: true });
  const socketPath = join(dir, options.socketName ?? 'dra.sock');
  const streams = new Map<ServerWritableStream<unknown, unknown>, string>();
  const waiters: Array<() => void> = [];
  const watch = (service: string) => (stream: ServerWritableStream<unknown, unknown>) => {
    streams.set(stream, service);
    stream.on('cancelled', () => streams.delete(stream));
    for (const wake of waiters.splice(0)) wake();
  };
  const server = new Server();
  const services = options.healthServices ?? ['v1alpha1', 'v1'];
  if (services.includes('v1alpha1'))
    server.addService(draHealthV1alpha1.DRAResourceHealthService, { nodeWatchResources: watch('v1alpha1') });
  if (services.includes('v1'))
    server.addService(draHealthV1.DRAResourceHealthService, { nodeWatchResources: watch('v1') });
  let registration: Server | undefined;
  if (options.registryDir !== undefined) {
    server.addService(draV1.DRAPluginService, {
      nodePrepareResources: prepareAnswer(
        options.driver,
        options.pool ?? 'node-a',
        options.claimDevices ?? {},
      ),
      nodeUnprepareResources: (
        call: ServerUnaryCall<draV1.NodeUnprepareResourcesRequest, draV1.NodeUnprepareResourcesResponse>,
        callback: sendUnaryData<draV1.NodeUnprepareResourcesResponse>,
      ) =>
        callback(null, {
          claims: Object.fromEntries(call.request.claims.map((c) => [c.uid, { error: '' }])),
        }),
    });
  }
  await bind(server, socketPath);
  if (options.registryDir !== undefined) {
    mkdirSync(options.registryDir, { recursive: true });
    registration = new Server();
    registration.addService(pluginregistration.RegistrationService, {
      getInfo: (_call: unknown, callback: sendUnaryData<pluginregistration.PluginInfo>) =>
        callback(null, {
          type: 'DRAPlugin',
          name: options.driver,
          endpoint: socketPath,
          supportedVersions: ['v1.DRAPlugin', ...services.map((s) => `${s}.DRAResourceHealth`)],
        }),
      notifyRegistrationStatus: (_call: unknown, callback: sendUnaryData<object>) => callback(null, {}),
    });
    await bind(registration, join(options.registryDir, `${options.driver}-reg.sock`));
  }

  const stop = (s: Server): Promise<void> => new Promise((resolve) => s.tryShutdown(() => resolve()));
  return {
    socketPath,
    openStreams: () => [...streams.values()].sort(),
    async streamsOpen(count) {
      while (streams.size < count) await new Promise<void>((resolve) => waiters.push(resolve));
    },
    sendHealth(devices) {
      const message = {
        devices: devices.map((d) => ({
          device: { poolName: d.pool, deviceName: d.device },
          health: d.health,
          lastUpdatedTime: d.at,
          healthCheckTimeoutSeconds: d.timeoutSeconds ?? 0,
          message: '',
        })),
      };
      for (const stream of streams.keys()) stream.write(message);
    },
    endStreams() {
      for (const stream of streams.keys()) stream.end();
      streams.clear();
    },
    async close() {
      for (const stream of streams.keys()) stream.end();
      streams.clear();
      if (registration !== undefined) await stop(registration);
      server.forceShutdown();
    },
  };
}
