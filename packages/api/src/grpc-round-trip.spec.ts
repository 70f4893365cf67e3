import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentials, Server, ServerCredentials, type ServiceError } from '@grpc/grpc-js';
import {
  DevicePluginClient,
  DevicePluginService,
  type DevicePluginServer,
  type ListAndWatchResponse,
  RegistrationClient,
  RegistrationService,
  type RegisterRequest,
  type RegistrationServer,
} from './index';

// The generated service definitions and clients work over a real unix socket, as the kubelet uses them.
describe('generated services over a unix socket', () => {
  let dir: string;
  let server: Server;
  let registered: RegisterRequest[];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kdp-api-'));
    registered = [];
    server = new Server();
    const kubelet: RegistrationServer = {
      register: (call, callback) => {
        registered.push(call.request);
        callback(null, {});
      },
    };
    server.addService(RegistrationService, kubelet);
    const plugin: DevicePluginServer = {
      getDevicePluginOptions: (_call, callback) =>
        callback(null, { preStartRequired: false, getPreferredAllocationAvailable: true }),
      listAndWatch: (call) => {
        call.write({ devices: [{ ID: 'dev-0', health: 'Healthy', topology: { nodes: [{ ID: 1 }] } }] });
        call.end();
      },
      getPreferredAllocation: (call, callback) =>
        callback(null, {
          containerResponses: call.request.containerRequests.map((r) => ({
            deviceIDs: r.mustIncludeDeviceIDs,
          })),
        }),
      allocate: (call, callback) =>
        callback(null, {
          containerResponses: call.request.containerRequests.map((r) => ({
            envs: { IDS: r.devicesIds.join(',') },
            mounts: [],
            devices: [],
            annotations: {},
            cdiDevices: [],
          })),
        }),
      preStartContainer: (_call, callback) => callback(null, {}),
    };
    server.addService(DevicePluginService, plugin);
    await new Promise<void>((resolve, reject) =>
      server.bindAsync(`unix://${join(dir, 'api.sock')}`, ServerCredentials.createInsecure(), (err) =>
        err ? reject(err) : resolve(),
      ),
    );
  });

  afterEach(async () => {
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('carries Register, options, ListAndWatch, GetPreferredAllocation and Allocate', async () => {
    const address = `unix://${join(dir, 'api.sock')}`;
    const registration = new RegistrationClient(address, credentials.createInsecure());
    const plugin = new DevicePluginClient(address, credentials.createInsecure());
    try {
      await new Promise<void>((resolve, reject) =>
        registration.register(
          { version: 'v1beta1', endpoint: 'api.sock', resourceName: 'example.com/dev', options: undefined },
          (err: ServiceError | null) => (err ? reject(err) : resolve()),
        ),
      );
      expect(registered).toEqual([
        { version: 'v1beta1', endpoint: 'api.sock', resourceName: 'example.com/dev', options: undefined },
      ]);

      const options = await new Promise((resolve, reject) =>
        plugin.getDevicePluginOptions({}, (err, res) => (err ? reject(err) : resolve(res))),
      );
      expect(options).toEqual({ preStartRequired: false, getPreferredAllocationAvailable: true });

      const lists: ListAndWatchResponse[] = [];
      await new Promise<void>((resolve, reject) => {
        const stream = plugin.listAndWatch({});
        stream.on('data', (msg: ListAndWatchResponse) => lists.push(msg));
        stream.on('end', () => resolve());
        stream.on('error', reject);
      });
      expect(lists).toEqual([
        { devices: [{ ID: 'dev-0', health: 'Healthy', topology: { nodes: [{ ID: 1 }] } }] },
      ]);

      const preferred = await new Promise((resolve, reject) =>
        plugin.getPreferredAllocation(
          {
            containerRequests: [
              { availableDeviceIDs: ['a', 'b'], mustIncludeDeviceIDs: ['b'], allocationSize: 1 },
            ],
          },
          (err, res) => (err ? reject(err) : resolve(res)),
        ),
      );
      expect(preferred).toEqual({ containerResponses: [{ deviceIDs: ['b'] }] });

      const allocated = await new Promise((resolve, reject) =>
        plugin.allocate(
          { containerRequests: [{ devicesIds: ['a'] }, { devicesIds: ['b', 'c'] }] },
          (err, res) => (err ? reject(err) : resolve(res)),
        ),
      );
      expect(allocated).toEqual({
        containerResponses: [
          { envs: { IDS: 'a' }, mounts: [], devices: [], annotations: {}, cdiDevices: [] },
          { envs: { IDS: 'b,c' }, mounts: [], devices: [], annotations: {}, cdiDevices: [] },
        ],
      });
    } finally {
      registration.close();
      plugin.close();
    }
  });
});
