import { draHealthV1alpha1 } from '@kdp/api';
import { startProbeServer, type ProbeServer } from '@kdp/base';
import { createApiServer, createKubeletSim, type ApiServer, type KubeletSim } from '@kdp/kubelet-sim';
import { createTempDir, type TempDir } from '@kdp/topology/testing';
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { createDeviceMonitor, type DeviceMonitor } from './device-monitor';
import type { PollResult } from './pod-resources-poller';
import { createPodResourcesClient, type PodResourcesClient } from './pod-resources-client';
import { startFakeDraDriver, type FakeDraDriver } from './testing/fake-dra-driver';
import { metricNamingProblems } from './testing/metric-naming';

const driver = 'gpu.example.com';
const node = 'node-a';

describe('device monitor against kubelet-sim with a DRA driver', () => {
  let temp: TempDir;
  let api: ApiServer;
  let sim: KubeletSim;
  let draDriver: FakeDraDriver;
  let client: PodResourcesClient;
  let monitor: DeviceMonitor;
  let server: ProbeServer;

  /** A claim allocated to `devices` of the driver on this node and reserved for pod `uid`. */
  const claim = (name: string, devices: readonly string[], uid: string): void => {
    const created = api.store.create(
      'resourceclaims',
      {
        metadata: { name },
        spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: driver } }] } },
      },
      'ml',
    );
    api.store.update(
      'resourceclaims',
      {
        ...created,
        status: {
          allocation: {
            devices: { results: devices.map((device) => ({ request: 'gpu', driver, pool: node, device })) },
          },
          reservedFor: [{ resource: 'pods', name: 'train', uid }],
        },
      },
      { namespace: 'ml', subresource: 'status' },
    );
  };

  beforeEach(async () => {
    temp = createTempDir('mon-dra-');
    const registryDir = join(temp.path, 'registry');
    const pluginsDir = join(temp.path, 'plugins');
    mkdirSync(join(temp.path, 'pr'));
    const podResourcesSocket = join(temp.path, 'pr', 'kubelet.sock');
    api = await createApiServer({ nodes: [node] });
    sim = await createKubeletSim({
      dir: join(temp.path, 'dp'),
      podResourcesSocket,
      dra: {
        pluginsRegistryDir: registryDir,
        apiServer: { url: api.url },
        nodeName: node,
        podSyncRetryMs: 50,
      },
    });
    const connected = sim.waitFor('dra-connection', (e) => e.driver === driver && e.connected, 20_000);
    draDriver = await startFakeDraDriver({
      pluginsDir,
      driver,
      registryDir,
      pool: node,
      claimDevices: { gpus: ['gpu-0', 'gpu-1'], solo: ['gpu-2'] },
    });
    await connected;
    client = createPodResourcesClient({ socketPath: podResourcesSocket });
    const registry = new Registry();
    monitor = createDeviceMonitor({ client, registry, intervalMs: 50, draPluginsDir: pluginsDir });
    server = await startProbeServer({
      address: '127.0.0.1:0',
      metrics: registry,
      readiness: () => monitor.readiness(),
    });
  });

  afterEach(async () => {
    await monitor.stop();
    client.close();
    await server.close();
    await sim.close();
    await draDriver.close();
    await api.close();
    temp.remove();
  });

  /** Resolves at the first successful poll whose DRA device count satisfies `check`. */
  const polled = (check: (count: number) => boolean): Promise<void> =>
    new Promise((resolve) => {
      const listener = (result: PollResult): void => {
        if (!result.ok || !check(result.snapshot.draDevices.length)) return;
        monitor.events.off('poll', listener);
        resolve();
      };
      monitor.events.on('poll', listener);
    });
  const scrape = async () => (await fetch(`${server.url}/metrics`)).text();
  const series = (container: string, claimName: string, device: string) =>
    `{namespace="ml",pod="train",container="${container}",claim="${claimName}",driver="${driver}",pool="${node}",device="${device}"}`;

  it('exports the devices the kubelet prepared per container and claim, with the driver health', async () => {
    claim('gpus', ['gpu-0', 'gpu-1'], 'u1');
    claim('solo', ['gpu-2'], 'u1');
    await sim.prepareClaims(
      {
        name: 'train',
        namespace: 'ml',
        uid: 'u1',
        containers: [
          { name: 'main', claims: ['gpus'] },
          { name: 'sidecar', claims: ['gpus', 'solo'] },
        ],
      },
      ['gpus', 'solo'],
    );
    const listed = polled((count) => count === 5);
    monitor.start();
    await listed;
    // The kubelet's stream and the monitor's: the driver serves both.
    await draDriver.streamsOpen(2);
    const reported = once(monitor.events, 'draHealth');
    const at = Math.floor(Date.now() / 1000);
    const { HEALTHY, UNHEALTHY } = draHealthV1alpha1.HealthStatus;
    draDriver.sendHealth([
      { pool: node, device: 'gpu-0', health: HEALTHY, at },
      { pool: node, device: 'gpu-1', health: HEALTHY, at },
      { pool: node, device: 'gpu-2', health: UNHEALTHY, at },
    ]);
    await reported;

    const text = await scrape();
    const held = [...text.matchAll(/^kdp_container_dra_allocated_devices(\{[^}]*\}) 1$/gm)].map((m) => m[1]);
    expect(held.sort()).toEqual(
      [
        series('main', 'gpus', 'gpu-0'),
        series('main', 'gpus', 'gpu-1'),
        series('sidecar', 'gpus', 'gpu-0'),
        series('sidecar', 'gpus', 'gpu-1'),
        series('sidecar', 'solo', 'gpu-2'),
      ].sort(),
    );
    expect(text).toContain(`kdp_container_dra_device_health${series('main', 'gpus', 'gpu-0')} 1`);
    expect(text).toContain(`kdp_container_dra_device_health${series('sidecar', 'solo', 'gpu-2')} 0`);
    expect(text).toContain(`kdp_dra_allocated_devices{driver="${driver}",pool="${node}"} 3`);
    expect(metricNamingProblems(text, 'kdp_')).toEqual([]);

    const gone = polled((count) => count === 0);
    await sim.deletePod('train', 'ml');
    await gone;
    expect(await scrape()).not.toContain('pod="train"');
  }, 60_000);
});
