import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKubeletSim, type KubeletSim } from '@kdp/kubelet-sim';
import { createDevicePlugin } from './device-plugin';
import { createPushSource } from './device-source';
import { createPluginMetrics } from './metrics/plugin-metrics';
import type { PluginDevice } from './plugin-device';
import { serveDevicePlugin } from './serve-device-plugin';

const resource = 'example.com/widget';
const device = (id: string, health: 'Healthy' | 'Unhealthy' = 'Healthy'): PluginDevice => ({
  id,
  health,
  numaNodes: [0],
  allocation: { devices: [{ containerPath: `/dev/${id}`, hostPath: `/dev/${id}` }] },
});

describe('serveDevicePlugin', () => {
  let dir: string;
  let sim: KubeletSim;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kdp-serve-'));
    sim = await createKubeletSim({ dir });
  });

  afterEach(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('drives the metrics contract and readiness from the lifecycle, and cleans up when the signal fires', async () => {
    const source = createPushSource([device('w0'), device('w1', 'Unhealthy')]);
    const plugin = createDevicePlugin({
      devicePluginDir: dir,
      handleSignals: false,
      resources: [{ name: resource, source }],
    });
    const metrics = createPluginMetrics();
    const abort = new AbortController();
    const metric = async (name: string, labels: string): Promise<number | undefined> => {
      const line = (await metrics.registry.metrics())
        .split('\n')
        .find((l) => l.startsWith(`${name}{${labels}}`));
      return line === undefined ? undefined : Number(line.split(' ').pop());
    };

    /** Resolves once `check` holds; polls, since the events it depends on may already have passed. */
    const eventually = async (check: () => Promise<boolean>): Promise<void> => {
      const deadline = Date.now() + 30_000;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error('condition not met within 30 s');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };

    const registered = sim.waitFor('registered', (e) => e.resource === resource, 30_000);
    const served = serveDevicePlugin({ metrics, signal: abort.signal }, plugin);
    await registered;
    await eventually(async () => sim.resource(resource)?.allocatable === 1);
    await eventually(
      async () => (await metric('kdp_list_and_watch_streams', `resource="${resource}"`)) === 1,
    );

    await expect(metric('kdp_resource_registered', `resource="${resource}"`)).resolves.toBe(1);
    expect(metrics.readiness().ok).toBe(true);
    await expect(metric('kdp_device_health', `resource="${resource}",device="w0"`)).resolves.toBe(1);
    await expect(metric('kdp_device_health', `resource="${resource}",device="w1"`)).resolves.toBe(0);
    await expect(metric('kdp_list_and_watch_streams', `resource="${resource}"`)).resolves.toBe(1);

    await sim.admit({ pod: 'p', container: 'c', resource, count: 1 });
    await expect(metric('kdp_allocate_requests_total', `resource="${resource}",outcome="ok"`)).resolves.toBe(
      1,
    );

    const reregistered = sim.waitFor('registered', (e) => e.resource === resource, 30_000);
    await sim.restart();
    await reregistered;
    await eventually(async () => (await metrics.registry.metrics()).includes('kdp_reregistrations_total{'));
    await expect(metric('kdp_registrations_total', `resource="${resource}"`)).resolves.toBe(2);

    const socket = plugin.resources()[0]?.socketPath ?? '';
    expect(existsSync(socket)).toBe(true);
    abort.abort();
    await served;
    expect(existsSync(socket)).toBe(false);
    await expect(metric('kdp_resource_registered', `resource="${resource}"`)).resolves.toBe(0);
  }, 60_000);
});
