import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentials, Server, ServerCredentials, type ServiceError, status } from '@grpc/grpc-js';
import {
  DevicePluginClient,
  DevicePluginService,
  type DevicePluginServer,
  type ListAndWatchResponse,
  RegistrationClient,
  RegistrationService,
  type RegisterRequest,
  draHealthV1,
  draHealthV1alpha1,
  draV1,
  draV1beta1,
  podresources,
} from './index';
import type { RegistrationServer } from './gen/deviceplugin/v1beta1/api';

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

/** Resolves with the response of a unary call made with a generated client. */
function unary<Req, Res>(
  call: (request: Req, callback: (err: ServiceError | null, res: Res) => void) => unknown,
  request: Req,
): Promise<Res> {
  return new Promise((resolve, reject) => call(request, (err, res) => (err ? reject(err) : resolve(res))));
}

/** Collects every message of a server stream until it ends. */
function collect<T>(stream: NodeJS.ReadableStream): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const messages: T[] = [];
    stream.on('data', (msg: T) => messages.push(msg));
    stream.on('end', () => resolve(messages));
    stream.on('error', reject);
  });
}

// A DRA driver's socket: both DRAPlugin versions and both health versions on one server, beside podresources,
// whose proto package `v1` is also the v1 health API's: the method paths keep them apart.
describe('generated DRA services over a unix socket', () => {
  let dir: string;
  let address: string;
  let server: Server;
  let unprepared: draV1.Claim[];

  const claim = { namespace: 'ml', uid: '5f0c2a1e-8d3b-4c7a-9e21-6b4f0d8a7c13', name: 'gpu' };
  const prepare = (claims: draV1.Claim[]): draV1.NodePrepareResourcesResponse => ({
    claims: Object.fromEntries(
      claims.map((c) => [
        c.uid,
        c.namespace === 'ml'
          ? {
              devices: [
                {
                  requestNames: ['gpu'],
                  poolName: 'node-a',
                  deviceName: 'gpu-0',
                  cdiDeviceIds: [`k8s.gpu.kdp.dev/claim=${c.uid}-gpu-0`],
                  shareId: undefined,
                },
              ],
              error: '',
            }
          : { devices: [], error: `claim ${c.namespace}/${c.name}: not allocated on this node` },
      ]),
    ),
  });
  const healthOf = (health: number) => ({
    devices: [
      {
        device: { poolName: 'node-a', deviceName: 'gpu-0' },
        health,
        lastUpdatedTime: 1795000000,
        healthCheckTimeoutSeconds: 30,
        message: '',
      },
    ],
  });

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kdp-dra-'));
    address = `unix://${join(dir, 'dra.sock')}`;
    unprepared = [];
    server = new Server();
    const v1: draV1.DRAPluginServer = {
      nodePrepareResources: (call, callback) => callback(null, prepare(call.request.claims)),
      nodeUnprepareResources: (call, callback) => {
        unprepared.push(...call.request.claims);
        callback(null, {
          claims: Object.fromEntries(call.request.claims.map((c) => [c.uid, { error: '' }])),
        });
      },
    };
    server.addService(draV1.DRAPluginService, v1);
    const v1beta1: draV1beta1.DRAPluginServer = {
      nodePrepareResources: (call, callback) =>
        callback(null, {
          claims: Object.fromEntries(
            call.request.claims.map((c) => [
              c.uid,
              {
                devices: [{ requestNames: [], poolName: 'node-a', deviceName: 'gpu-1', cdiDeviceIds: [] }],
                error: '',
              },
            ]),
          ),
        }),
      nodeUnprepareResources: (_call, callback) =>
        callback({ code: status.UNIMPLEMENTED, details: 'v1 only' }),
    };
    server.addService(draV1beta1.DRAPluginService, v1beta1);
    const alpha: draHealthV1alpha1.DRAResourceHealthServer = {
      nodeWatchResources: (call) => {
        call.write(healthOf(draHealthV1alpha1.HealthStatus.HEALTHY));
        call.write(healthOf(draHealthV1alpha1.HealthStatus.UNHEALTHY));
        call.end();
      },
    };
    server.addService(draHealthV1alpha1.DRAResourceHealthService, alpha);
    const health: draHealthV1.DRAResourceHealthServer = {
      nodeWatchResources: (call) => {
        call.write(healthOf(draHealthV1.HealthStatus.UNKNOWN));
        call.end();
      },
    };
    server.addService(draHealthV1.DRAResourceHealthService, health);
    const lister: podresources.PodResourcesListerServer = {
      list: (_call, callback) => callback(null, { podResources: [] }),
      getAllocatableResources: (_call, callback) => callback(null, { devices: [], cpuIds: [7], memory: [] }),
      get: (_call, callback) => callback(null, { podResources: undefined }),
    };
    server.addService(podresources.PodResourcesListerService, lister);
    await new Promise<void>((resolve, reject) =>
      server.bindAsync(address, ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())),
    );
  });

  afterEach(async () => {
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('carries v1 NodePrepareResources (per-claim errors, an absent share_id) and NodeUnprepareResources', async () => {
    const client = new draV1.DRAPluginClient(address, credentials.createInsecure());
    try {
      const other = { namespace: 'default', uid: 'a93e7b40-1c5d-4f8e-b2a6-0d7c9e3f1b58', name: 'usb' };
      const prepared = await unary(client.nodePrepareResources.bind(client), { claims: [claim, other] });
      expect(prepared).toEqual(prepare([claim, other]));

      const res = await unary(client.nodeUnprepareResources.bind(client), { claims: [claim] });
      expect(res).toEqual({ claims: { [claim.uid]: { error: '' } } });
      expect(unprepared).toEqual([claim]);
    } finally {
      client.close();
    }
  });

  it('carries v1beta1 NodePrepareResources and its gRPC errors', async () => {
    const client = new draV1beta1.DRAPluginClient(address, credentials.createInsecure());
    try {
      const prepared = await unary(client.nodePrepareResources.bind(client), { claims: [claim] });
      expect(prepared).toEqual({
        claims: {
          [claim.uid]: {
            devices: [{ requestNames: [], poolName: 'node-a', deviceName: 'gpu-1', cdiDeviceIds: [] }],
            error: '',
          },
        },
      });
      await expect(
        unary(client.nodeUnprepareResources.bind(client), { claims: [claim] }),
      ).rejects.toMatchObject({
        code: status.UNIMPLEMENTED,
        details: 'v1 only',
      });
    } finally {
      client.close();
    }
  });

  it('streams NodeWatchResources from both health APIs, apart from podresources in the same `v1` package', async () => {
    const alpha = new draHealthV1alpha1.DRAResourceHealthClient(address, credentials.createInsecure());
    const health = new draHealthV1.DRAResourceHealthClient(address, credentials.createInsecure());
    const lister = new podresources.PodResourcesListerClient(address, credentials.createInsecure());
    try {
      expect(await collect(alpha.nodeWatchResources({}))).toEqual([
        healthOf(draHealthV1alpha1.HealthStatus.HEALTHY),
        healthOf(draHealthV1alpha1.HealthStatus.UNHEALTHY),
      ]);
      expect(await collect(health.nodeWatchResources({}))).toEqual([
        healthOf(draHealthV1.HealthStatus.UNKNOWN),
      ]);
      expect(await unary(lister.getAllocatableResources.bind(lister), {})).toEqual({
        devices: [],
        cpuIds: [7],
        memory: [],
      });
    } finally {
      alpha.close();
      health.close();
      lister.close();
    }
  });
});
