import { join } from 'node:path';
import { credentials, status, type ServiceError } from '@grpc/grpc-js';
import {
  DevicePluginClient,
  type AllocateRequest,
  type AllocateResponse,
  type ListAndWatchResponse,
} from '@kdp/api';
import { createKubeletSim, type KubeletSim } from '@kdp/kubelet-sim';
import { createDevicePlugin, type DevicePlugin } from './device-plugin';
import { DevicePluginError } from './device-plugin-error';
import { createPushSource } from './device-source';
import type { PluginDevice } from './plugin-device';
import { createTempDir } from '@kdp/topology/testing';
import { topologyPreferredAllocation } from './topology-preferred-allocation';

const GPU = 'example.com/gpu';
const pool = (n: number, sick: string[] = []): PluginDevice<string>[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `gpu${i}`,
    health: sick.includes(`gpu${i}`) ? 'Unhealthy' : 'Healthy',
    numaNodes: [i % 2],
    payload: `/dev/gpu${i}`,
  }));

describe('the device-plugin service over its socket', () => {
  let tmp: ReturnType<typeof createTempDir>;
  let sim: KubeletSim;
  let plugin: DevicePlugin;
  let client: DevicePluginClient;
  const source = createPushSource(pool(64, ['gpu63']));

  beforeAll(async () => {
    tmp = createTempDir();
    const dir = join(tmp.path, 'dp');
    sim = await createKubeletSim({ dir });
    plugin = createDevicePlugin({
      devicePluginDir: dir,
      resources: [
        {
          name: GPU,
          source,
          options: { getPreferredAllocationAvailable: true },
          preferredAllocation: topologyPreferredAllocation(),
          allocate: ({ devices }) => {
            if (devices.some((d) => d.id === 'gpu62')) {
              throw new DevicePluginError(status.FAILED_PRECONDITION, 'gpu62 is being reset; try again');
            }
            if (devices.some((d) => d.id === 'gpu61')) throw new Error('driver exploded');
            return {
              envs: { GPUS: devices.map((d) => d.id).join(',') },
              devices: devices.map((d) => ({ containerPath: d.payload ?? '', hostPath: d.payload ?? '' })),
            };
          },
        },
      ],
    });
    const registered = plugin.waitFor((e) => e.type === 'registered');
    await plugin.start();
    await registered;
    client = new DevicePluginClient(
      `unix://${plugin.resources()[0]?.socketPath}`,
      credentials.createInsecure(),
      {
        'grpc.max_send_message_length': 64 * 1024 * 1024,
      },
    );
  }, 30_000);

  afterAll(async () => {
    client.close();
    await plugin.stop();
    await sim.close();
    tmp.remove();
  });

  const allocate = (request: AllocateRequest): Promise<AllocateResponse> =>
    new Promise((resolve, reject) =>
      client.allocate(request, (error, response) => (error ? reject(error) : resolve(response))),
    );
  const containers = (...ids: string[][]): AllocateRequest => ({
    containerRequests: ids.map((devicesIds) => ({ devicesIds })),
  });

  it('answers 50 concurrent Allocates, each with its own responses in order', async () => {
    const requests = Array.from({ length: 50 }, (_, i) =>
      containers([`gpu${i % 60}`], [`gpu${(i + 1) % 60}`, `gpu${(i + 2) % 60}`]),
    );
    const responses = await Promise.all(requests.map(allocate));
    responses.forEach((response, i) => {
      expect(response.containerResponses.map((r) => r.envs['GPUS'])).toEqual([
        `gpu${i % 60}`,
        `gpu${(i + 1) % 60},gpu${(i + 2) % 60}`,
      ]);
    });
  });

  it.each<[string, AllocateRequest, RegExp]>([
    ['zero container requests', { containerRequests: [] }, /no container requests/],
    ['an empty container request', containers([]), /names no devices/],
    [
      'unknown IDs',
      containers(['nope', 'gpu1', 'nada']),
      /cannot allocate example.com\/gpu: unknown device IDs "nope", "nada"/,
    ],
    ['duplicate IDs', containers(['gpu1', 'gpu1']), /device "gpu1" requested twice/],
    ['unhealthy IDs', containers(['gpu63']), /device "gpu63" unhealthy/],
    [
      'a huge request',
      containers(Array.from({ length: 200_000 }, (_, i) => `ghost-${i}`)),
      /and 199992 more/,
    ],
  ])('rejects %s with INVALID_ARGUMENT and keeps serving', async (_what, request, message) => {
    const error = (await allocate(request).catch((e: unknown) => e)) as ServiceError;
    expect(error.code).toBe(status.INVALID_ARGUMENT);
    expect(error.details).toMatch(message);
    await expect(allocate(containers(['gpu0']))).resolves.toBeDefined();
  });

  it('turns hook errors into gRPC statuses', async () => {
    await expect(allocate(containers(['gpu62']))).rejects.toMatchObject({
      code: status.FAILED_PRECONDITION,
      details: 'gpu62 is being reset; try again',
    });
    await expect(allocate(containers(['gpu61']))).rejects.toMatchObject({
      code: status.INTERNAL,
      details: 'allocate hook for example.com/gpu failed: driver exploded',
    });
  });

  it('reads a pod event well through the kubelet', async () => {
    await expect(sim.admit({ pod: 'p1', container: 'c', resource: GPU, count: 1000 })).rejects.toThrow(
      /requested number of devices unavailable/,
    );
  });

  it('answers GetPreferredAllocation on the fewest NUMA nodes, honouring must-include and size', async () => {
    const response = await new Promise<{ containerResponses: { deviceIDs: string[] }[] }>((resolve, reject) =>
      client.getPreferredAllocation(
        {
          containerRequests: [
            {
              availableDeviceIDs: ['gpu0', 'gpu1', 'gpu2', 'gpu3', 'gpu63', 'ghost'],
              mustIncludeDeviceIDs: ['gpu1'],
              allocationSize: 2,
            },
          ],
        },
        (error, value) => (error ? reject(error) : resolve(value)),
      ),
    );
    expect(response.containerResponses[0]?.deviceIDs.sort()).toEqual(['gpu1', 'gpu3']);
  });

  it('broadcasts full lists to two overlapping streams: first message at once, unchanged lists not resent', async () => {
    const open = (): {
      messages: ListAndWatchResponse[];
      next: (n: number) => Promise<void>;
      cancel: () => void;
    } => {
      const messages: ListAndWatchResponse[] = [];
      const stream = client.listAndWatch({});
      let waiter: { n: number; resolve: () => void } | undefined;
      stream.on('data', (m: ListAndWatchResponse) => {
        messages.push(m);
        if (waiter && messages.length >= waiter.n) waiter.resolve();
      });
      stream.on('error', () => undefined);
      return {
        messages,
        next: (n) =>
          messages.length >= n
            ? Promise.resolve()
            : new Promise<void>((resolve) => (waiter = { n, resolve })),
        cancel: () => stream.cancel(),
      };
    };
    const a = open();
    await a.next(1);
    const b = open();
    await b.next(1);
    expect(a.messages[0]?.devices).toHaveLength(64);
    expect(b.messages[0]).toEqual(a.messages[0]);

    source.set([...pool(64, ['gpu63'])].reverse()); // same list, other order: not resent
    source.set(pool(64, ['gpu63', 'gpu0'])); // gpu0 unhealthy: resent to both
    await a.next(2);
    await b.next(2);
    expect(a.messages).toHaveLength(2);
    expect(b.messages).toHaveLength(2);
    expect(a.messages[1]?.devices.find((d) => d.ID === 'gpu0')?.health).toBe('Unhealthy');
    expect(b.messages[1]).toEqual(a.messages[1]);
    a.cancel();
    b.cancel();
    source.set(pool(64, ['gpu63']));
  });
});
