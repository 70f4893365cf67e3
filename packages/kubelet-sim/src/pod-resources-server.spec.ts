import { mkdtempSync, rmSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentials, type ServiceError, status } from '@grpc/grpc-js';
import { Healthy, podresources } from '@kdp/api';
import { createKubeletSim } from './kubelet-sim';
import type { KubeletSim } from './kubelet-sim-types';
import { flattenDevices } from './pod-resources-server';
import { createFakeClock } from './testing/fake-clock';
import { createTestPlugin, type TestPlugin } from './testing/test-plugin';

const resource = 'example.com/dev';

describe('pod-resources server (P-35)', () => {
  let dir: string;
  let sim: KubeletSim;
  let plugin: TestPlugin;
  let client: podresources.PodResourcesListerClient;
  const clock = createFakeClock();

  const call = <Req, Res>(
    method: (req: Req, cb: (err: ServiceError | null, res: Res) => void) => unknown,
    request: Req,
  ): Promise<Res> =>
    new Promise<Res>((resolve, reject) =>
      method.call(client, request, (err: ServiceError | null, res: Res) =>
        err ? reject(err) : resolve(res),
      ),
    );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ks-pr-'));
    const socket = join(dir, 'pr', 'kubelet.sock');
    sim = await createKubeletSim({
      dir: join(dir, 'dp'),
      clock,
      podResourcesSocket: socket,
      podResourcesRateLimit: { qps: 1, burst: 3 },
    });
    const devices = sim.waitFor('devices');
    plugin = await createTestPlugin({
      dir: join(dir, 'dp'),
      devices: [
        { ID: 'a', health: Healthy, topology: { nodes: [{ ID: 0 }, { ID: 1 }] } },
        { ID: 'b', health: Healthy, topology: undefined },
        { ID: 'c', health: 'Unhealthy', topology: { nodes: [{ ID: 1 }] } },
      ],
      options: { preStartRequired: false, getPreferredAllocationAvailable: false },
    });
    await devices;
    await sim.admit({ pod: 'p', namespace: 'ns', container: 'c', resource, count: 2 });
    client = new podresources.PodResourcesListerClient(`unix://${socket}`, credentials.createInsecure());
  });

  afterAll(async () => {
    client.close();
    await plugin.stop();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('List flattens one entry per device and NUMA node; Get finds the pod; then the rate limit bites', async () => {
    const list = await call<podresources.ListPodResourcesRequest, podresources.ListPodResourcesResponse>(
      client.list,
      {},
    );
    expect(list.podResources).toEqual([
      {
        name: 'p',
        namespace: 'ns',
        containers: [
          {
            name: 'c',
            devices: [
              { resourceName: resource, deviceIds: ['a'], topology: { nodes: [{ ID: 0 }] } },
              { resourceName: resource, deviceIds: ['a'], topology: { nodes: [{ ID: 1 }] } },
              { resourceName: resource, deviceIds: ['b'], topology: undefined },
            ],
            cpuIds: [],
            memory: [],
            dynamicResources: [],
          },
        ],
        cpuIds: [],
        memory: [],
      },
    ]);
    const allocatable = await call<
      podresources.AllocatableResourcesRequest,
      podresources.AllocatableResourcesResponse
    >(client.getAllocatableResources, {});
    expect(allocatable.devices.map((d) => d.deviceIds[0])).toEqual(['a', 'a', 'b']);
    const got = await call<podresources.GetPodResourcesRequest, podresources.GetPodResourcesResponse>(
      client.get,
      {
        podName: 'p',
        podNamespace: 'ns',
      },
    );
    expect(got.podResources?.name).toBe('p');
    // Burst 3 is used up, and the fake clock does not refill it.
    await expect(call(client.list, {})).rejects.toMatchObject({
      code: status.RESOURCE_EXHAUSTED,
      details: 'rejected by rate limit',
    });
    clock.advance(1000);
    await expect(call(client.get, { podName: 'x', podNamespace: 'ns' })).rejects.toMatchObject({
      code: status.UNKNOWN,
      details: 'pod x in namespace ns not found',
    });
  });

  it('flattenDevices gives a device without topology one entry', () => {
    expect(flattenDevices('r/x', ['d'], () => [])).toEqual([
      { resourceName: 'r/x', deviceIds: ['d'], topology: undefined },
    ]);
  });

  it('goes away and comes back with a kubelet restart, with the pods it had (checkpoint)', async () => {
    const socket = join(dir, 'pr', 'kubelet.sock');
    const seen: string[] = [];
    const watcher = watch(join(dir, 'pr'), (_event, name) => seen.push(String(name)));
    try {
      await sim.restart();
      // Removed and created again: two events for the socket, delivered asynchronously.
      const deadline = Date.now() + 10_000;
      while (seen.filter((n) => n === 'kubelet.sock').length < 2 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    } finally {
      watcher.close();
    }
    expect(seen.filter((n) => n === 'kubelet.sock').length).toBeGreaterThanOrEqual(2);
    client.close();
    client = new podresources.PodResourcesListerClient(`unix://${socket}`, credentials.createInsecure());
    clock.advance(10_000); // refill the rate limiter's bucket
    const listed = await call<podresources.ListPodResourcesRequest, podresources.ListPodResourcesResponse>(
      client.list,
      {},
    );
    expect(listed.podResources.map((p) => `${p.namespace}/${p.name}`)).toEqual(['ns/p']);
  });
});
