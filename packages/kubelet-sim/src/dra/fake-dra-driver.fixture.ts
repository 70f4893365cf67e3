import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Server, type sendUnaryData, type ServerWritableStream, status } from '@grpc/grpc-js';
import { draHealthV1, draHealthV1alpha1, draV1, draV1beta1, pluginregistration } from '@kdp/api';
import { bindUnix, rpcError, stopServer } from '../grpc-util';

/**
 * What the fake driver answers to one NodePrepareResources / NodeUnprepareResources, or an Error for a gRPC
 * error; a promise of either for a driver that reads the API server first.
 */
export type PrepareAnswer = (
  request: draV1.NodePrepareResourcesRequest,
) => draV1.NodePrepareResourcesResponse | Error | Promise<draV1.NodePrepareResourcesResponse | Error>;
/** What the fake driver answers to one NodeUnprepareResources (see {@link PrepareAnswer}). */
export type UnprepareAnswer = (
  request: draV1.NodeUnprepareResourcesRequest,
) => draV1.NodeUnprepareResourcesResponse | Error | Promise<draV1.NodeUnprepareResourcesResponse | Error>;

/** Options of {@link createFakeDraDriver}. */
export interface FakeDraDriverOptions {
  readonly registryDir: string;
  /** Directory of the DRA socket (`dra.sock`). */
  readonly pluginDir: string;
  readonly driver?: string;
  /** Name of the registration socket; default `<driver>-reg.sock`. */
  readonly regSocketName?: string;
  /** `supported_versions` as sent in GetInfo; default `['v1.DRAPlugin', 'v1beta1.DRAPlugin']`. */
  readonly supportedVersions?: readonly string[];
  /** The endpoint sent in GetInfo; default the DRA socket. */
  readonly endpoint?: string;
  readonly prepare?: PrepareAnswer;
  readonly unprepare?: UnprepareAnswer;
}

/** A tiny DRA driver over raw gRPC: Registration on its reg socket, DRAPlugin v1 + v1beta1 and both health services on `dra.sock`. */
export interface FakeDraDriver {
  readonly driver: string;
  readonly socketPath: string;
  readonly regSocketPath: string;
  /** Every call by service, e.g. `v1.DRAPlugin/NodePrepareResources`, with its claims. */
  readonly calls: Array<{ readonly method: string; readonly claims: draV1.Claim[] }>;
  readonly statuses: pluginregistration.RegistrationStatus[];
  /** Resolves with the statuses once `count` NotifyRegistrationStatus calls arrived. */
  statusesReceived(count: number): Promise<pluginregistration.RegistrationStatus[]>;
  /** Health streams now open, by service (`v1alpha1` / `v1`). */
  openStreams(): string[];
  /** Resolves with the service of the next health stream opened. */
  nextStream(): Promise<string>;
  sendHealth(
    devices: Array<{
      pool: string;
      device: string;
      health: 'HEALTHY' | 'UNHEALTHY';
      at: number;
      timeoutSeconds?: number;
    }>,
  ): void;
  endHealthStreams(): void;
  prepareAnswer: PrepareAnswer;
  unprepareAnswer: UnprepareAnswer;
  /** Stops the DRA socket only (the registration socket stays). */
  stopPluginServer(): Promise<void>;
  /** Serves the DRA socket again. */
  startPluginServer(): Promise<void>;
  stop(): Promise<void>;
}

/** Prepares each claim with one device named after it, CDI ID `example.com/gpu=<name>`. */
export const prepareAll: PrepareAnswer = (request) => ({
  claims: Object.fromEntries(
    request.claims.map((c) => [
      c.uid,
      {
        devices: [
          {
            requestNames: ['gpu'],
            poolName: 'node-a',
            deviceName: `dev-${c.name}`,
            cdiDeviceIds: [`example.com/gpu=${c.name}`],
          },
        ],
        error: '',
      },
    ]),
  ),
});

/** Unprepares every claim. */
export const unprepareAll: UnprepareAnswer = (request) => ({
  claims: Object.fromEntries(request.claims.map((c) => [c.uid, { error: '' }])),
});

/** Starts the fake driver; its registration socket appears last, so the kubelet finds a serving plugin. */
export async function createFakeDraDriver(options: FakeDraDriverOptions): Promise<FakeDraDriver> {
  const driver = options.driver ?? 'gpu.example.com';
  mkdirSync(options.pluginDir, { recursive: true, mode: 0o750 });
  mkdirSync(options.registryDir, { recursive: true, mode: 0o750 });
  const socketPath = join(options.pluginDir, 'dra.sock');
  const regSocketPath = join(options.registryDir, options.regSocketName ?? `${driver}-reg.sock`);
  const calls: FakeDraDriver['calls'] = [];
  const statuses: pluginregistration.RegistrationStatus[] = [];
  const streams = new Map<ServerWritableStream<unknown, unknown>, string>();
  const streamWaiters: Array<(service: string) => void> = [];
  const statusWaiters: Array<() => void> = [];

  const fake: FakeDraDriver = {
    driver,
    socketPath,
    regSocketPath,
    calls,
    statuses,
    statusesReceived: async (count) => {
      while (statuses.length < count) await new Promise<void>((resolve) => statusWaiters.push(resolve));
      return [...statuses];
    },
    openStreams: () => [...streams.values()],
    nextStream: () => new Promise((resolve) => streamWaiters.push(resolve)),
    sendHealth: (devices) => {
      const message = {
        devices: devices.map((d) => ({
          device: { poolName: d.pool, deviceName: d.device },
          health: d.health === 'HEALTHY' ? 1 : 2,
          lastUpdatedTime: Math.floor(d.at / 1000),
          healthCheckTimeoutSeconds: d.timeoutSeconds ?? 0,
          message: '',
        })),
      };
      for (const stream of streams.keys()) stream.write(message);
    },
    endHealthStreams: () => {
      for (const stream of streams.keys()) stream.end();
      streams.clear();
    },
    prepareAnswer: options.prepare ?? prepareAll,
    unprepareAnswer: options.unprepare ?? unprepareAll,
    stopPluginServer: async () => {
      await stopServer(plugin);
    },
    startPluginServer: async () => {
      plugin = pluginServer();
      await bindUnix(plugin, socketPath);
    },
    stop: async () => {
      await stopServer(registration);
      await stopServer(plugin);
    },
  };

  const unary =
    <Req extends { claims: draV1.Claim[] }, Res>(
      method: string,
      answer: () => (request: Req) => Res | Error | Promise<Res | Error>,
    ) =>
    (call: { request: Req }, callback: sendUnaryData<Res>): void => {
      calls.push({ method, claims: call.request.claims });
      const reply = (result: Res | Error): void => {
        if (result instanceof Error) callback(rpcError(status.INTERNAL, result.message));
        else callback(null, result);
      };
      const result = answer()(call.request);
      if (result instanceof Promise) {
        result.then(reply, (err: unknown) => reply(err instanceof Error ? err : new Error(String(err))));
      } else reply(result);
    };
  const watch = (name: string) => (stream: ServerWritableStream<unknown, unknown>) => {
    streams.set(stream, name);
    stream.on('cancelled', () => streams.delete(stream));
    for (const resolve of streamWaiters.splice(0)) resolve(name);
  };
  const pluginServer = (): Server => {
    const server = new Server();
    server.addService(draV1.DRAPluginService, {
      nodePrepareResources: unary('v1.DRAPlugin/NodePrepareResources', () => fake.prepareAnswer),
      nodeUnprepareResources: unary('v1.DRAPlugin/NodeUnprepareResources', () => fake.unprepareAnswer),
    });
    server.addService(draV1beta1.DRAPluginService, {
      nodePrepareResources: unary('v1beta1.DRAPlugin/NodePrepareResources', () => fake.prepareAnswer),
      nodeUnprepareResources: unary('v1beta1.DRAPlugin/NodeUnprepareResources', () => fake.unprepareAnswer),
    });
    server.addService(draHealthV1alpha1.DRAResourceHealthService, { nodeWatchResources: watch('v1alpha1') });
    server.addService(draHealthV1.DRAResourceHealthService, { nodeWatchResources: watch('v1') });
    return server;
  };
  let plugin = pluginServer();
  await bindUnix(plugin, socketPath);

  const registration = new Server();
  registration.addService(pluginregistration.RegistrationService, {
    getInfo: (_call: unknown, callback: sendUnaryData<pluginregistration.PluginInfo>) =>
      callback(null, {
        type: 'DRAPlugin',
        name: driver,
        endpoint: options.endpoint ?? socketPath,
        supportedVersions: [...(options.supportedVersions ?? ['v1.DRAPlugin', 'v1beta1.DRAPlugin'])],
      }),
    notifyRegistrationStatus: (
      call: { request: pluginregistration.RegistrationStatus },
      callback: sendUnaryData<pluginregistration.RegistrationStatusResponse>,
    ) => {
      statuses.push(call.request);
      callback(null, {});
      for (const resolve of statusWaiters.splice(0)) resolve();
    },
  });
  await bindUnix(registration, regSocketPath);
  return fake;
}
