import { startProbeServer, type ProbeServer } from '@kdp/base';
import { createKubeletSim, createTestPlugin, type KubeletSim, type TestPlugin } from '@kdp/kubelet-sim';
import { createTempDir, type TempDir } from '@kdp/topology/testing';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { createDeviceMonitor, type DeviceMonitor } from './device-monitor';
import { createPodResourcesClient, type PodResourcesClient } from './pod-resources-client';
import type { PollResult } from './pod-resources-poller';
import { metricNamingProblems } from './testing/metric-naming';

const gpu = 'example.com/gpu';

/** Resolves once `sim` has `resource` registered with its devices listed (now, or on a later event). */
async function deviceListed(sim: KubeletSim, resource: string): Promise<void> {
  const listed = sim.waitFor('devices', (e) => e.resource === resource, 20_000);
  const state = sim.resource(resource);
  if (state?.registered && state.devices.length > 0) {
    listed.catch(() => undefined);
    return;
  }
  await listed;
}

/** Resolves with the first poll result after the call that satisfies `predicate`. */
function nextPoll(
  monitor: DeviceMonitor,
  predicate: (result: PollResult) => boolean,
  timeoutMs = 20_000,
): Promise<PollResult> {
  return new Promise((resolve, reject) => {
    const seen: string[] = [];
    const timer = setTimeout(() => {
      monitor.events.off('poll', listener);
      reject(
        new Error(`no matching poll within ${timeoutMs} ms; last results: ${seen.slice(-3).join(' | ')}`),
      );
    }, timeoutMs);
    const listener = (result: PollResult) => {
      seen.push(
        result.ok
          ? `ok ${result.snapshot.allocated.map((d) => `${d.pod}/${d.device}`).join(',')}`
          : `${result.code}`,
      );
      if (!predicate(result)) return;
      clearTimeout(timer);
      monitor.events.off('poll', listener);
      resolve(result);
    };
    monitor.events.on('poll', listener);
  });
}

const holds = (result: PollResult, pod: string) =>
  result.ok && result.snapshot.allocated.some((d) => d.pod === pod);

describe('device monitor against kubelet-sim', () => {
  let temp: TempDir;
  let dir: string;
  let podResourcesSocket: string;
  let sim: KubeletSim;
  let plugin: TestPlugin;
  let client: PodResourcesClient;
  let monitor: DeviceMonitor;
  let server: ProbeServer;

  const setUp = async (
    simOptions: { podResourcesRateLimit?: { qps: number; burst: number } } = {},
    intervalMs = 50,
    maxBackoffMs = 1_000,
  ) => {
    temp = createTempDir('mon-');
    dir = join(temp.path, 'dp');
    mkdirSync(join(temp.path, 'pr'));
    podResourcesSocket = join(temp.path, 'pr', 'kubelet.sock');
    sim = await createKubeletSim({ dir, podResourcesSocket, ...simOptions });
    // Four healthy devices, dev-0 and dev-1 on NUMA node 0, dev-2 and dev-3 on node 1.
    plugin = await createTestPlugin({ dir, resource: gpu, endpoint: 'gpu.sock' });
    await deviceListed(sim, gpu);
    client = createPodResourcesClient({ socketPath: podResourcesSocket });
    const registry = new Registry();
    monitor = createDeviceMonitor({
      client,
      registry,
      intervalMs,
      backoff: { initialMs: 100, maxMs: maxBackoffMs },
    });
    server = await startProbeServer({
      address: '127.0.0.1:0',
      metrics: registry,
      readiness: () => monitor.readiness(),
    });
    monitor.start();
  };

  afterEach(async () => {
    await monitor.stop();
    client.close();
    await server.close();
    await plugin.stop();
    await sim.close();
    temp.remove();
  });

  const scrape = async () => (await fetch(`${server.url}/metrics`)).text();
  const series = (ns: string, pod: string, container: string, device: string, numa: string) =>
    `kdp_container_allocated_devices{namespace="${ns}",pod="${pod}",container="${container}",resource="${gpu}",device="${device}",numa_node="${numa}"} 1`;

  it('shows admitted pods with their labels, drops released ones, and exports only well-named metrics', async () => {
    await setUp();
    const a = await sim.admit({
      pod: 'trainer',
      namespace: 'ml',
      container: 'main',
      resource: gpu,
      count: 2,
    });
    const b = await sim.admit({ pod: 'infer', container: 'server', resource: gpu, count: 1 });
    await nextPoll(monitor, (r) => holds(r, 'trainer') && holds(r, 'infer'));

    const text = await scrape();
    const numaOf = (id: string) => (id === 'dev-0' || id === 'dev-1' ? '0' : '1');
    for (const id of a.deviceIds) expect(text).toContain(series('ml', 'trainer', 'main', id, numaOf(id)));
    for (const id of b.deviceIds)
      expect(text).toContain(series('default', 'infer', 'server', id, numaOf(id)));
    expect(text.match(/^kdp_container_allocated_devices\{/gm)).toHaveLength(3);
    expect(text).toContain(`kdp_allocated_devices{resource="${gpu}",numa_node="0"}`);
    expect(text).toMatch(new RegExp(`^kdp_allocatable_devices\\{resource="${gpu}",numa_node="0"\\} 2$`, 'm'));
    expect(text).toMatch(new RegExp(`^kdp_allocatable_devices\\{resource="${gpu}",numa_node="1"\\} 2$`, 'm'));
    const unallocated = [...text.matchAll(/^kdp_unallocated_devices\{[^}]*\} (\d+)$/gm)].reduce(
      (sum, m) => sum + Number(m[1]),
      0,
    );
    expect(unallocated).toBe(1);
    expect(metricNamingProblems(text, 'kdp_')).toEqual([]);

    sim.release('trainer', 'ml');
    await nextPoll(monitor, (r) => r.ok && !holds(r, 'trainer'));
    const after = await scrape();
    expect(after).not.toContain('pod="trainer"');
    for (const id of b.deviceIds)
      expect(after).toContain(series('default', 'infer', 'server', id, numaOf(id)));
  }, 60_000);

  it('survives a kubelet restart that recreates the socket, without restarting the monitor', async () => {
    await setUp();
    await sim.admit({ pod: 'before', container: 'c', resource: gpu, count: 1 });
    await nextPoll(monitor, (r) => holds(r, 'before'));

    // The kubelet process goes away (its sockets with it) and the monitor keeps polling and failing ...
    await sim.close();
    expect(existsSync(podResourcesSocket)).toBe(false);
    await nextPoll(monitor, (r) => !r.ok && r.code === 'UNAVAILABLE');
    expect(await scrape()).toMatch(/^kdp_monitor_pod_resources_up 0$/m);
    expect(await scrape()).toContain('pod="before"');

    // ... until a new kubelet serves a new socket at the same path, restoring allocations from its checkpoint.
    sim = await createKubeletSim({ dir, podResourcesSocket });
    expect(existsSync(podResourcesSocket)).toBe(true);
    await deviceListed(sim, gpu);
    await sim.admit({ pod: 'after', container: 'c', resource: gpu, count: 1 });
    await nextPoll(monitor, (r) => holds(r, 'after') && holds(r, 'before'));
    const text = await scrape();
    expect(text).toMatch(
      /^kdp_container_allocated_devices\{namespace="default",pod="after",container="c",resource="example.com\/gpu"/m,
    );
    expect(text).toMatch(/^kdp_monitor_pod_resources_up 1$/m);
    expect(text).toMatch(/^kdp_monitor_pod_resources_reconnects_total [1-9]/m);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  }, 60_000);

  it('backs off from RESOURCE_EXHAUSTED instead of hammering the kubelet, and recovers', async () => {
    await setUp({ podResourcesRateLimit: { qps: 2, burst: 2 } }, 10, 60_000);
    const delays: Array<{ delayMs: number; backoff: boolean }> = [];
    monitor.events.on('scheduled', (s) => delays.push(s));
    const exhausted = await nextPoll(monitor, (r) => !r.ok && r.code === 'RESOURCE_EXHAUSTED');
    expect(exhausted).toMatchObject({
      ok: false,
      message: expect.stringContaining('rejected by rate limit'),
    });
    const firstFailure = delays.length;
    await nextPoll(monitor, (r) => r.ok);
    const streak = delays.slice(firstFailure).filter((s) => s.backoff);
    // Each retry waits longer than the last (100 ms, 200 ms, ... with at most 20% jitter), never the 10 ms interval.
    expect(streak.length).toBeGreaterThanOrEqual(1);
    expect(streak.length).toBeLessThan(10);
    streak.forEach((s, i) => {
      expect(s.delayMs).toBeGreaterThanOrEqual(80);
      if (i > 0) expect(s.delayMs).toBeGreaterThan(streak[i - 1]?.delayMs ?? 0);
    });
    expect(await scrape()).toMatch(
      /^kdp_monitor_pod_resources_errors_total\{method="[A-Za-z]+",code="RESOURCE_EXHAUSTED"\} [1-9]/m,
    );
  }, 60_000);
});
