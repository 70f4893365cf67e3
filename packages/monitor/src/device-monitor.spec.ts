import { status } from '@grpc/grpc-js';
import { createLogger } from '@kdp/base';
import { createFakeClock, type FakeClock } from '@kdp/kubelet-sim';
import { createTempDir, type TempDir } from '@kdp/topology/testing';
import { once } from 'node:events';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { createDeviceMonitor, type DeviceMonitor } from './device-monitor';
import { createPluginHealthScraper } from './plugin-health-scraper';
import { createPodResourcesClient, type PodResourcesClient } from './pod-resources-client';
import { draHealthV1alpha1 } from '@kdp/api';
import { startFakeDraDriver, type FakeDraDriver } from './testing/fake-dra-driver';
import {
  claimResources,
  podWithClaims,
  podWithDevices,
  startFakePodResourcesServer,
  type FakePodResourcesServer,
} from './testing/fake-pod-resources-server';
import { metricNamingProblems } from './testing/metric-naming';
import { startPluginMetricsStub, type PluginMetricsStub } from './testing/plugin-metrics-stub';
import { plain, samplesOf } from './testing/read-metrics';

const gpu = 'nvidia.com/gpu';
const topo = (id: number) => ({ nodes: [{ ID: id }] });

describe('createDeviceMonitor against a fake pod-resources server', () => {
  let temp: TempDir;
  let socket: string;
  let fake: FakePodResourcesServer;
  let client: PodResourcesClient;
  let registry: Registry;
  let clock: FakeClock;
  let monitor: DeviceMonitor | undefined;

  beforeEach(async () => {
    temp = createTempDir('mon-');
    socket = join(temp.path, 'pr.sock');
    fake = await startFakePodResourcesServer(socket);
    fake.allocatable = {
      devices: [
        { resourceName: gpu, deviceIds: ['g0'], topology: topo(0) },
        { resourceName: gpu, deviceIds: ['g1'], topology: topo(1) },
        { resourceName: gpu, deviceIds: ['g2'], topology: topo(1) },
      ],
      cpuIds: [0, 1, 2, 3],
      memory: [{ memoryType: 'memory', size: 4096, topology: topo(0) }],
    };
    client = createPodResourcesClient({ socketPath: socket, callTimeoutMs: 10_000 });
    registry = new Registry();
    clock = createFakeClock();
  });

  afterEach(async () => {
    await monitor?.stop();
    monitor = undefined;
    client.close();
    await fake.close();
    temp.remove();
  });

  const make = (extra: Partial<Parameters<typeof createDeviceMonitor>[0]> = {}) => {
    monitor = createDeviceMonitor({
      client,
      registry,
      clock,
      intervalMs: 1_000,
      backoff: { initialMs: 2_000, maxMs: 8_000, jitter: 0 },
      version: '9.9.9',
      ...extra,
    });
    return monitor;
  };

  it('exports each allocated device with pod, namespace and container labels, and drops them when the pod goes', async () => {
    const m = make();
    fake.list = {
      podResources: [
        podWithDevices('train', 'main', gpu, ['g1', 'g2'], {
          namespace: 'ml',
          numa: 1,
          cpuIds: [2, 3],
          memory: [{ memoryType: 'memory', size: 1024, topology: topo(0) }],
        }),
      ],
    };
    expect(await m.pollOnce()).toMatchObject({ ok: true });
    expect(plain(await samplesOf(registry, 'kdp_container_allocated_devices'))).toEqual([
      {
        labels: {
          namespace: 'ml',
          pod: 'train',
          container: 'main',
          resource: gpu,
          device: 'g1',
          numa_node: '1',
        },
        value: 1,
      },
      {
        labels: {
          namespace: 'ml',
          pod: 'train',
          container: 'main',
          resource: gpu,
          device: 'g2',
          numa_node: '1',
        },
        value: 1,
      },
    ]);
    expect(plain(await samplesOf(registry, 'kdp_allocatable_devices'))).toEqual([
      { labels: { resource: gpu, numa_node: '0' }, value: 1 },
      { labels: { resource: gpu, numa_node: '1' }, value: 2 },
    ]);
    expect(plain(await samplesOf(registry, 'kdp_unallocated_devices'))).toEqual([
      { labels: { resource: gpu, numa_node: '0' }, value: 1 },
      { labels: { resource: gpu, numa_node: '1' }, value: 0 },
    ]);
    expect(
      plain(await samplesOf(registry, 'kdp_container_exclusive_cpus')).map((s) => s.labels['cpu']),
    ).toEqual(['2', '3']);
    expect(plain(await samplesOf(registry, 'kdp_container_memory_bytes'))).toEqual([
      {
        labels: { namespace: 'ml', pod: 'train', container: 'main', memory_type: 'memory', numa_node: '0' },
        value: 1024,
      },
    ]);
    expect((await samplesOf(registry, 'kdp_allocatable_cpus'))[0]?.value).toBe(4);
    expect((await samplesOf(registry, 'kdp_monitor_pod_resources_up'))[0]?.value).toBe(1);
    expect(
      (await samplesOf(registry, 'kdp_monitor_pod_resources_last_success_timestamp_seconds'))[0]?.value,
    ).toBe(clock.now() / 1000);

    fake.list = { podResources: [] };
    expect(await m.pollOnce()).toMatchObject({ ok: true });
    expect(await samplesOf(registry, 'kdp_container_allocated_devices')).toEqual([]);
    expect(await samplesOf(registry, 'kdp_container_exclusive_cpus')).toEqual([]);
    expect(plain(await samplesOf(registry, 'kdp_unallocated_devices')).map((s) => s.value)).toEqual([1, 2]);
  });

  it('keeps exporting List data when the kubelet does not serve GetAllocatableResources, and stops asking', async () => {
    fake.allocatableUnimplemented = true;
    fake.list = { podResources: [podWithDevices('p', 'c', gpu, ['g0'])] };
    const m = make();
    expect(await m.pollOnce()).toMatchObject({ ok: true });
    expect(await m.pollOnce()).toMatchObject({ ok: true });
    expect(fake.calls.getAllocatableResources).toBe(1);
    expect(await samplesOf(registry, 'kdp_container_allocated_devices')).toHaveLength(1);
    expect(await samplesOf(registry, 'kdp_allocatable_devices')).toEqual([]);
  });

  it('backs off exponentially on RESOURCE_EXHAUSTED, keeps the last metrics meanwhile, and returns to the interval', async () => {
    fake.list = { podResources: [podWithDevices('p', 'c', gpu, ['g0'])] };
    const m = make();
    const scheduled: Array<{ delayMs: number; backoff: boolean }> = [];
    m.events.on('scheduled', (s) => scheduled.push(s));
    const next = () => once(m.events, 'scheduled');
    let wait = next();
    m.start();
    await wait;
    fake.failNext(status.RESOURCE_EXHAUSTED, 3);
    for (const step of [1_000, 2_000, 4_000, 8_000]) {
      wait = next();
      clock.advance(step);
      await wait;
    }
    expect(scheduled).toEqual([
      { delayMs: 1_000, backoff: false },
      { delayMs: 2_000, backoff: true },
      { delayMs: 4_000, backoff: true },
      { delayMs: 8_000, backoff: true },
      { delayMs: 1_000, backoff: false },
    ]);
    expect(plain(await samplesOf(registry, 'kdp_monitor_pod_resources_errors_total'))).toEqual([
      { labels: { method: 'GetAllocatableResources', code: 'RESOURCE_EXHAUSTED' }, value: 3 },
    ]);
    expect(await samplesOf(registry, 'kdp_container_allocated_devices')).toHaveLength(1);
    expect((await samplesOf(registry, 'kdp_monitor_pod_resources_backoff_seconds'))[0]?.value).toBe(0);
  });

  it('keeps polling when an event listener throws', async () => {
    const m = make();
    m.events.on('poll', () => {
      throw new Error('listener bug');
    });
    const scheduled = once(m.events, 'scheduled');
    m.start();
    expect(await scheduled).toEqual([{ delayMs: 1_000, backoff: false }]);
    const again = once(m.events, 'scheduled');
    clock.advance(1_000);
    expect(await again).toEqual([{ delayMs: 1_000, backoff: false }]);
    expect(fake.calls.list).toBe(2);
  });

  it('logs pino lines: fields first, a failed poll with its method and code, a thrown error as err', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger({
      level: 'debug',
      name: 'device-monitor',
      destination: { write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) },
    });
    const m = make({ logger });
    m.events.on('poll', () => {
      throw new Error('listener bug');
    });
    fake.failNext(status.RESOURCE_EXHAUSTED, 1);
    await m.pollOnce();
    await m.pollOnce();
    expect(lines.map(({ level, msg }) => `${String(level)} ${String(msg)}`)).toEqual([
      'warn pod-resources poll failed',
      'error poll listener threw',
      'info pod-resources API answering again',
      'error poll listener threw',
    ]);
    expect(lines[0]).toMatchObject({
      name: 'device-monitor',
      method: 'GetAllocatableResources',
      code: 'RESOURCE_EXHAUSTED',
      error: expect.stringContaining('injected RESOURCE_EXHAUSTED'),
    });
    expect(lines[1]).toMatchObject({
      err: { type: 'Error', message: 'listener bug', stack: expect.stringContaining('listener bug') },
    });
  });

  it('survives the server going away and a new one on the same socket path, without being restarted', async () => {
    fake.list = { podResources: [podWithDevices('before', 'c', gpu, ['g0'])] };
    const m = make({ backoff: { initialMs: 1_000, maxMs: 1_000, jitter: 0 } });
    expect(await m.pollOnce()).toMatchObject({ ok: true });
    await fake.close();
    const failed = await m.pollOnce();
    expect(failed).toMatchObject({ ok: false, code: 'UNAVAILABLE' });
    expect(m.readiness().ok).toBe(true);
    fake = await startFakePodResourcesServer(socket);
    fake.list = { podResources: [podWithDevices('after', 'c', gpu, ['g1'])] };
    expect(await m.pollOnce()).toMatchObject({ ok: true });
    expect(
      plain(await samplesOf(registry, 'kdp_container_allocated_devices')).map((s) => s.labels['pod']),
    ).toEqual(['after']);
    expect(
      (await samplesOf(registry, 'kdp_monitor_pod_resources_reconnects_total'))[0]?.value,
    ).toBeGreaterThanOrEqual(1);
  });

  it('is not ready before a successful poll nor after the staleness window', async () => {
    const m = make({ staleAfterMs: 5_000 });
    await fake.close();
    expect(await m.pollOnce()).toMatchObject({ ok: false });
    expect(m.readiness()).toEqual({
      ok: false,
      message: expect.stringMatching(/^no successful poll yet \(GetAllocatableResources: UNAVAILABLE/),
    });
    fake = await startFakePodResourcesServer(socket);
    expect(await m.pollOnce()).toMatchObject({ ok: true });
    expect(m.readiness()).toEqual({ ok: true, message: 'ok' });
    clock.advance(5_001);
    expect(m.readiness().ok).toBe(false);
  });

  describe('with plugin metrics endpoints', () => {
    let plugin: PluginMetricsStub;
    beforeEach(async () => {
      plugin = await startPluginMetricsStub(
        '# TYPE kdp_device_health gauge\nkdp_device_health{resource="nvidia.com/gpu",device="g0"} 1\nkdp_device_health{resource="nvidia.com/gpu",device="g1"} 0\n',
      );
    });
    afterEach(() => plugin.close());

    it('joins device health to the holding container, and a plugin going down breaks nothing else', async () => {
      fake.list = {
        podResources: [podWithDevices('a', 'c', gpu, ['g0']), podWithDevices('b', 'c', gpu, ['g1'])],
      };
      const m = make({ healthScraper: createPluginHealthScraper({ endpoints: [plugin.url] }) });
      const health = once(m.events, 'health');
      await m.pollOnce();
      await health;
      expect(plain(await samplesOf(registry, 'kdp_container_device_health'))).toEqual([
        { labels: { namespace: 'default', pod: 'a', container: 'c', resource: gpu, device: 'g0' }, value: 1 },
        { labels: { namespace: 'default', pod: 'b', container: 'c', resource: gpu, device: 'g1' }, value: 0 },
      ]);
      expect((await samplesOf(registry, 'kdp_monitor_plugin_up'))[0]?.value).toBe(1);

      plugin.statusCode = 503;
      const failedHealth = once(m.events, 'health');
      clock.advance(1_000);
      await m.pollOnce();
      await failedHealth;
      const text = await registry.metrics();
      expect(text).toContain(`kdp_monitor_plugin_scrape_errors_total{endpoint="${plugin.url}"} 1`);
      expect(text).toContain(`kdp_monitor_plugin_up{endpoint="${plugin.url}"} 0`);
      expect(await samplesOf(registry, 'kdp_container_device_health')).toEqual([]);
      expect(await samplesOf(registry, 'kdp_container_allocated_devices')).toHaveLength(2);
    });

    it('tells an absent plugin (connection refused) from a failing one: no up series, no errors, one log line each', async () => {
      fake.list = { podResources: [podWithDevices('a', 'c', gpu, ['g0'])] };
      const endpoint = 'http://10.0.0.1:9402/metrics';
      let answer: () => string = () => {
        throw new TypeError('fetch failed', {
          cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }),
        });
      };
      const lines: string[] = [];
      const logger = createLogger({
        level: 'debug',
        name: 't',
        destination: { write: (l) => lines.push(l) },
      });
      const m = make({
        logger,
        healthScraper: createPluginHealthScraper({ endpoints: [endpoint], fetchText: async () => answer() }),
      });
      const pollWithHealth = async () => {
        const health = once(m.events, 'health');
        clock.advance(1_000);
        await m.pollOnce();
        await health;
        const text = await registry.metrics();
        return {
          up: /^kdp_monitor_plugin_up\{[^}]*\} (\d)$/m.exec(text)?.[1],
          present: /^kdp_monitor_plugin_present\{[^}]*\} (\d)$/m.exec(text)?.[1],
          errors: /^kdp_monitor_plugin_scrape_errors_total\{[^}]*\} (\d+)$/m.exec(text)?.[1],
          health: (await samplesOf(registry, 'kdp_container_device_health')).length,
        };
      };
      const absent = { up: undefined, present: '0', errors: '0', health: 0 };
      expect(await pollWithHealth()).toEqual(absent);
      expect(await pollWithHealth()).toEqual(absent);
      answer = () => 'kdp_device_health{resource="nvidia.com/gpu",device="g0"} 1\n';
      expect(await pollWithHealth()).toEqual({ up: '1', present: '1', errors: '0', health: 1 });
      answer = () => {
        throw new Error('HTTP 500');
      };
      expect(await pollWithHealth()).toEqual({ up: '0', present: '1', errors: '1', health: 0 });
      expect(await pollWithHealth()).toEqual({ up: '0', present: '1', errors: '2', health: 0 });
      answer = () => {
        throw new TypeError('fetch failed', {
          cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }),
        });
      };
      expect(await pollWithHealth()).toEqual({ ...absent, errors: '2' });
      const messages = lines
        .map((line) => JSON.parse(line) as { msg: string; endpoint?: string })
        .filter((line) => line.endpoint === endpoint)
        .map((line) => line.msg);
      expect(messages).toEqual([
        'no plugin listening at this endpoint (none on this node, or restarting)',
        'plugin metrics endpoint answering',
        'plugin metrics scrape failed',
        'no plugin listening at this endpoint (none on this node, or restarting)',
      ]);
    });

    it('exports only names that follow the Prometheus and Kubernetes naming rules', async () => {
      fake.list = {
        podResources: [
          podWithDevices('a', 'c', gpu, ['g0'], {
            cpuIds: [1],
            memory: [{ memoryType: 'memory', size: 1, topology: undefined }],
          }),
        ],
      };
      const m = make({ healthScraper: createPluginHealthScraper({ endpoints: [plugin.url] }) });
      const health = once(m.events, 'health');
      await m.pollOnce();
      await health;
      const text = await registry.metrics();
      expect(metricNamingProblems(text, 'kdp_')).toEqual([]);
      const families = [...text.matchAll(/^# TYPE (\S+)/gm)].map((x) => x[1]);
      expect(families).toHaveLength(24);
      expect(metricNamingProblems('# HELP x_ms x\n# TYPE x_ms counter\nx_ms 1\n', 'kdp_')).toEqual([
        'x_ms: lacks the prefix kdp_',
        'x_ms: counter without _total',
        'x_ms: not in base units (seconds, bytes)',
      ]);
    });
  });
  describe('with DRA claims', () => {
    const driver = 'gpu.example.com';
    const dev = (device: string) => ({ driver, pool: 'node-a', device });
    let plugins: string;
    let draDriver: FakeDraDriver;
    beforeEach(async () => {
      plugins = join(temp.path, 'plugins');
      draDriver = await startFakeDraDriver({ pluginsDir: plugins, driver });
    });
    afterEach(() => draDriver.close());

    it('exports the devices of each container and claim, with the health their driver reports', async () => {
      fake.list = {
        podResources: [
          podWithClaims('train', 'ml', {
            main: [claimResources('gpus', 'ml', [dev('gpu-0'), dev('gpu-1')])],
            sidecar: [claimResources('gpus', 'ml', [dev('gpu-1')])],
          }),
        ],
      };
      const m = make({ draPluginsDir: plugins });
      await m.pollOnce();
      const holder = { namespace: 'ml', pod: 'train' };
      const labels = (container: string, device: string) => ({
        ...holder,
        container,
        claim: 'gpus',
        driver,
        pool: 'node-a',
        device,
      });
      expect(plain(await samplesOf(registry, 'kdp_container_dra_allocated_devices'))).toEqual([
        { labels: labels('main', 'gpu-0'), value: 1 },
        { labels: labels('main', 'gpu-1'), value: 1 },
        { labels: labels('sidecar', 'gpu-1'), value: 1 },
      ]);
      // gpu-1, shared by two containers, is one device of the pool.
      expect(plain(await samplesOf(registry, 'kdp_dra_allocated_devices'))).toEqual([
        { labels: { driver, pool: 'node-a' }, value: 2 },
      ]);
      expect(await samplesOf(registry, 'kdp_container_device_health')).toEqual([]);

      await draDriver.streamsOpen(1);
      const at = Math.floor(clock.now() / 1000);
      const { HEALTHY, UNHEALTHY } = draHealthV1alpha1.HealthStatus;
      const reported = once(m.events, 'draHealth');
      draDriver.sendHealth([
        { pool: 'node-a', device: 'gpu-0', health: HEALTHY, at, timeoutSeconds: 60 },
        { pool: 'node-a', device: 'gpu-1', health: UNHEALTHY, at, timeoutSeconds: 10 },
      ]);
      await reported;
      const healthOf = async () => plain(await samplesOf(registry, 'kdp_container_dra_device_health'));
      expect(await healthOf()).toEqual([
        { labels: labels('main', 'gpu-0'), value: 1 },
        { labels: labels('main', 'gpu-1'), value: 0 },
        { labels: labels('sidecar', 'gpu-1'), value: 0 },
      ]);

      // Not refreshed within its 10 s: Unknown (-1) from the next poll on.
      clock.advance(11_000);
      await m.pollOnce();
      expect((await healthOf()).map((s) => s.value)).toEqual([1, -1, -1]);

      fake.list = { podResources: [] };
      await m.pollOnce();
      expect(await samplesOf(registry, 'kdp_container_dra_allocated_devices')).toEqual([]);
      expect(await samplesOf(registry, 'kdp_container_dra_device_health')).toEqual([]);
      expect(await samplesOf(registry, 'kdp_dra_allocated_devices')).toEqual([]);
    });
  });
});
