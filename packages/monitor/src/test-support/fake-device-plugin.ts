import { credentials, Server, ServerCredentials, type ServerWritableStream } from '@grpc/grpc-js';
import {
  DevicePluginService,
  Healthy,
  RegistrationClient,
  Version,
  type Device,
  type DevicePluginServer,
  type Empty,
  type ListAndWatchResponse,
} from '@kdp/api';
import { rmSync } from 'node:fs';
import { join } from 'node:path';

/** A minimal device plugin for driving kubelet-sim in tests: fixed devices, empty Allocate answers. */
export interface FakeDevicePlugin {
  /** Registers with `<dir>/kubelet.sock` (again after a kubelet restart). */
  register(): Promise<void>;
  close(): Promise<void>;
}

/** Serves `<dir>/<endpoint>` with `devices` of `resource` (each Healthy, on NUMA node `numa` when given). */
export async function startFakeDevicePlugin(options: {
  dir: string;
  endpoint: string;
  resource: string;
  devices: Array<{ id: string; numa?: number }>;
}): Promise<FakeDevicePlugin> {
  const socket = join(options.dir, options.endpoint);
  const devices: Device[] = options.devices.map((d) => ({
    ID: d.id,
    health: Healthy,
    topology: d.numa === undefined ? undefined : { nodes: [{ ID: d.numa }] },
  }));
  const streams = new Set<ServerWritableStream<Empty, ListAndWatchResponse>>();
  const implementation: DevicePluginServer = {
    getDevicePluginOptions: (_call, callback) =>
      callback(null, { preStartRequired: false, getPreferredAllocationAvailable: false }),
    listAndWatch: (call) => {
      streams.add(call);
      call.on('cancelled', () => streams.delete(call));
      call.write({ devices });
    },
    getPreferredAllocation: (_call, callback) => callback(null, { containerResponses: [] }),
    allocate: (call, callback) =>
      callback(null, {
        containerResponses: call.request.containerRequests.map(() => ({
          envs: {},
          mounts: [],
          devices: [],
          annotations: {},
          cdiDevices: [],
        })),
      }),
    preStartContainer: (_call, callback) => callback(null, {}),
  };
  const server = new Server();
  server.addService(DevicePluginService, implementation);
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${socket}`, ServerCredentials.createInsecure(), (error) =>
      error ? reject(error) : resolve(),
    ),
  );
  return {
    register: () =>
      new Promise<void>((resolve, reject) => {
        const client = new RegistrationClient(
          `unix://${join(options.dir, 'kubelet.sock')}`,
          credentials.createInsecure(),
        );
        client.register(
          {
            version: Version,
            endpoint: options.endpoint,
            resourceName: options.resource,
            options: { preStartRequired: false, getPreferredAllocationAvailable: false },
          },
          (error) => {
            client.close();
            if (error) reject(error);
            else resolve();
          },
        );
      }),
    close: async () => {
      for (const stream of streams) stream.end();
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
      rmSync(socket, { force: true });
    },
  };
}
