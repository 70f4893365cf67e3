import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createKubeletSim, type KubeletSim } from '@kdp/kubelet-sim';
import { createDevicePlugin, type DevicePlugin, type DevicePluginOptions } from './device-plugin';
import { createPushSource, type PushSource } from './device-source';
import type { DevicePluginEvent } from './plugin-events';
import type { PluginDevice } from './plugin-device';
import { createTempDir } from '@kdp/topology/testing';

const GPU = 'example.com/gpu';
const NIC = 'example.com/nic';
const devices = (n: number, prefix = 'dev'): PluginDevice[] =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, health: 'Healthy', numaNodes: [i % 2] }));

describe('createDevicePlugin against kubelet-sim', () => {
  let tmp: ReturnType<typeof createTempDir>;
  let dir: string;
  let sim: KubeletSim | undefined;
  let plugin: DevicePlugin | undefined;
  let source: PushSource<unknown>;

  const startPlugin = async (options: Partial<DevicePluginOptions> = {}): Promise<DevicePlugin> => {
    plugin = createDevicePlugin({
      devicePluginDir: dir,
      resources: [{ name: GPU, source }],
      ...options,
    });
    await plugin.start();
    return plugin;
  };

  beforeEach(() => {
    tmp = createTempDir();
    dir = join(tmp.path, 'dp');
    source = createPushSource(devices(4));
  });

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) cleanup();
    await plugin?.stop();
    await sim?.close();
    plugin = undefined;
    sim = undefined;
    tmp.remove();
  });

  it('serves before registering, with options from the one declaration, and the first list at once', async () => {
    sim = await createKubeletSim({ dir });
    const registered = sim.waitFor('registered', (e) => e.resource === GPU, 20_000);
    const listed = sim.waitFor('devices', (e) => e.resource === GPU && e.devices.length === 4, 20_000);
    await startPlugin({
      resources: [
        {
          name: GPU,
          source,
          options: { preStartRequired: true },
          preStartContainer: () => undefined,
        },
      ],
    });
    const event = await registered;
    expect(event.servingAtRegister).toBe(true);
    expect(event.options).toEqual({ preStartRequired: true, getPreferredAllocationAvailable: false });
    expect(event.requestOptions).toEqual(event.options);
    expect(event.endpoint).toMatch(/^example\.com_gpu-[0-9a-f]{8}\.sock$/);
    await listed;
    expect(sim.resource(GPU)).toMatchObject({ registered: true, capacity: 4, allocatable: 4 });
    const socket = join(dir, event.endpoint);
    expect(statSync(socket).mode & 0o777).toBe(0o600);
  });

  it('registers a resource whose socket name would overflow 107 bytes under a shortened, hashed name', async () => {
    // An FPGA AFU resource name in a directory as long as the kubelet's (/var/lib/kubelet/device-plugins).
    const afu = 'fpga.intel.com/af-695.d84.aVKNtusxV3qMNmj5-qCB9thCTcSko8QT-J5DNoP5BAs';
    const padding = Math.max(1, '/var/lib/kubelet/device-plugins'.length - join(tmp.path, 'x').length);
    dir = join(tmp.path, 'x'.repeat(padding));
    sim = await createKubeletSim({ dir });
    const registered = sim.waitFor('registered', (e) => e.resource === afu, 20_000);
    await startPlugin({ resources: [{ name: afu, source }] });
    const event = await registered;
    expect(event.endpoint).toMatch(/^fpga\.intel\.com_af-695\.[\w.-]+_[0-9a-f]{8}-[0-9a-f]{8}\.sock$/);
    expect(Buffer.byteLength(join(dir, event.endpoint))).toBeLessThanOrEqual(107);
    await sim.waitFor('devices', (e) => e.resource === afu && e.devices.length === 4, 20_000);
  });

  it('re-registers after 200 kubelet restarts in a row without losing one', async () => {
    sim = await createKubeletSim({ dir });
    const p = await startPlugin();
    await p.waitFor((e) => e.type === 'registered');
    const reasons = new Map<string, number>();
    p.on((e) => {
      if (e.type === 'registered' && e.reason) reasons.set(e.reason, (reasons.get(e.reason) ?? 0) + 1);
    });
    for (let i = 0; i < 200; i++) {
      const pluginRegistered = p.waitFor((e) => e.type === 'registered', 30_000);
      await sim.restart({ waitForPlugins: true, timeoutMs: 30_000 });
      await pluginRegistered;
    }
    // Settled: registered, with the full list, on the latest kubelet.
    await waitUntil(() => sim?.resource(GPU)?.registered === true && sim.resource(GPU)?.capacity === 4);
    expect(p.resources()[0]?.state).toBe('registered');
    expect([...reasons.values()].reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(200);
  }, 300_000);

  it('re-registers when the kubelet drops the stream and when its socket is deleted', async () => {
    sim = await createKubeletSim({ dir });
    const first = sim.waitFor('registered', (e) => e.resource === GPU, 20_000);
    const p = await startPlugin();
    await first;
    await sim.waitFor('devices', (e) => e.resource === GPU, 20_000).catch(() => undefined);
    await waitUntil(() => p.resources()[0]?.openStreams === 1);

    let again = sim.waitFor('registered', (e) => e.resource === GPU, 20_000);
    const reason = p.waitFor((e) => e.type === 'registered' && e.reregistration);
    sim.dropStream(GPU);
    await again;
    expect(await reason).toMatchObject({ reason: 'stream-cancelled' });
    await waitUntil(() => sim?.resource(GPU)?.registered === true);

    again = sim.waitFor('registered', (e) => e.resource === GPU, 20_000);
    const reason2 = p.waitFor((e) => e.type === 'registered' && e.reregistration);
    await sim.deletePluginSocket(GPU);
    await again;
    expect(await reason2).toMatchObject({ reason: 'socket-deleted' });
    expect(existsSync(p.resources()[0]?.socketPath ?? '')).toBe(true);
  });

  it('notices a deleted socket by the lstat poll alone when fs.watch is off', async () => {
    sim = await createKubeletSim({ dir });
    const p = await startPlugin({ watchDirectories: false, restartPollMs: 50 });
    await p.waitFor((e) => e.type === 'registered');
    const again = p.waitFor((e) => e.type === 'registered' && e.reregistration);
    await sim.deletePluginSocket(GPU);
    expect(await again).toMatchObject({ reason: 'socket-deleted' });
  }, 30_000);

  it('waits for a kubelet that starts later (no directory yet), then registers', async () => {
    const p = await startPlugin();
    sim = await createKubeletSim({ dir });
    await p.waitFor((e) => e.type === 'registered');
    await waitUntil(() => sim?.resource(GPU)?.registered === true);
  }, 30_000);

  it('registers a live socket when the kubelet starts after it and cleans the directory (P-2)', async () => {
    mkdirSync(dir, { recursive: true });
    const p = await startPlugin();
    const kubeletSim = await createKubeletSim({ dir });
    sim = kubeletSim;
    const registered = await p.waitFor((e) => e.type === 'registered');
    expect(registered).toMatchObject({ reregistration: false });
    await waitUntil(() => kubeletSim.resource(GPU)?.capacity === 4);
    expect(existsSync(p.resources()[0]?.socketPath ?? '')).toBe(true);
  }, 30_000);

  it('backs off and retries when the kubelet refuses a registration', async () => {
    sim = await createKubeletSim({ dir });
    sim.refuseNextRegister('not today');
    const failed = new Promise<DevicePluginEvent>((resolve) => {
      const off = createDevicePluginEventsProbe((e) => e.type === 'register-failed', resolve);
      cleanups.push(off);
    });
    const p = await startPlugin({ backoff: { initialMs: 10, maxMs: 50 } });
    probeTarget = p;
    await p.waitFor((e) => e.type === 'registered');
    expect(await failed).toMatchObject({
      type: 'register-failed',
      message: expect.stringContaining('not today'),
    });
  });

  it('gives up after maxAttempts when asked to', async () => {
    // A broken kubelet: kubelet.sock accepts connections and hangs up, so every Register fails.
    mkdirSync(dir, { recursive: true });
    const broken = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => broken.listen(join(dir, 'kubelet.sock'), resolve));
    cleanups.push(() => broken.close());
    const p = await startPlugin({ backoff: { initialMs: 1, maxMs: 5, maxAttempts: 3 } });
    const gaveUp = await p.waitFor((e) => e.type === 'gave-up');
    expect(gaveUp).toMatchObject({ attempts: 3 });
    expect(p.resources()[0]?.state).toBe('stopped');
  }, 30_000);

  it('keeps resources isolated, and adds and removes them at run time', async () => {
    sim = await createKubeletSim({ dir });
    const nicSource = createPushSource(devices(2, 'nic'));
    const p = await startPlugin({
      resources: [
        { name: GPU, source },
        { name: NIC, source: nicSource },
      ],
    });
    await waitUntil(() => p.ready() && p.resources().every((r) => r.openStreams === 1));
    const nicSocket = p.resources().find((r) => r.name === NIC)?.socketPath ?? '';
    const nicRegistrations: DevicePluginEvent[] = [];
    p.on((e) => {
      if (e.resource === NIC && e.type === 'registered') nicRegistrations.push(e);
    });

    // A fault on one resource re-registers that one only.
    const gpuAgain = p.waitFor((e) => e.type === 'registered' && e.resource === GPU);
    await sim.deletePluginSocket(GPU);
    await gpuAgain;
    expect(nicRegistrations).toHaveLength(0);

    // Added at run time.
    const extra = 'example.com/fpga';
    const extraRegistered = sim.waitFor('registered', (e) => e.resource === extra, 20_000);
    p.addResource({ name: extra, source: createPushSource(devices(1, 'f')) });
    await extraRegistered;

    // Removed at run time: its socket goes, its stream ends, the others stay registered.
    const ended = sim.waitFor('stream-ended', (e) => e.resource === NIC, 20_000);
    await p.removeResource(NIC);
    await ended;
    expect(existsSync(nicSocket)).toBe(false);
    expect(
      p
        .resources()
        .map((r) => r.name)
        .sort(),
    ).toEqual([GPU, extra].sort());
    expect(sim.resource(GPU)?.registered).toBe(true);
    expect(sim.resource(extra)?.registered).toBe(true);
    expect(nicRegistrations).toHaveLength(0);
    expect(() => p.addResource({ name: 'bad', source })).toThrow('the ResourceName "bad" is invalid');
  });

  it('falls back to v1alpha when the kubelet only speaks it', async () => {
    sim = await createKubeletSim({ dir, acceptedApis: ['v1alpha2'] });
    const registered = sim.waitFor('registered', (e) => e.resource === GPU, 20_000);
    const p = await startPlugin();
    expect(await registered).toMatchObject({ version: 'v1alpha2' });
    expect(await p.waitFor((e) => e.type === 'registered')).toMatchObject({ apiVersion: 'v1alpha2' });
    await waitUntil(() => sim?.resource(GPU)?.capacity === 4);
    const admission = await sim.admit({ pod: 'p', container: 'c', resource: GPU, count: 1 });
    expect(admission.deviceIds).toHaveLength(1);
  });

  it('registers through the plugin watcher when switched to it', async () => {
    const registry = join(tmp.path, 'pr');
    sim = await createKubeletSim({ dir, pluginsRegistryDir: registry });
    const registered = sim.waitFor('registered', (e) => e.resource === GPU, 20_000);
    const p = await startPlugin({ registration: 'plugin-watcher', pluginsRegistryDir: registry });
    expect(await registered).toMatchObject({ via: 'plugin-watcher' });
    await p.waitFor((e) => e.type === 'registered');
    expect(p.resources()[0]?.socketPath.startsWith(registry)).toBe(true);
    await waitUntil(() => sim?.resource(GPU)?.capacity === 4);
  });

  it('shuts down gracefully on an AbortSignal: streams end, sockets are unlinked', async () => {
    sim = await createKubeletSim({ dir });
    const controller = new AbortController();
    const registered = sim.waitFor('registered', (e) => e.resource === GPU, 20_000);
    const p = await startPlugin({ signal: controller.signal, advertiseOnShutdown: 'unhealthy' });
    await registered;
    await waitUntil(() => p.resources()[0]?.openStreams === 1);
    const socket = p.resources()[0]?.socketPath ?? '';
    const lastList = sim.waitFor('devices', (e) => e.resource === GPU && e.unhealthy.length === 4, 20_000);
    const ended = sim.waitFor('stream-ended', (e) => e.resource === GPU, 20_000);
    controller.abort();
    await p.stopped;
    await lastList;
    await ended;
    expect(existsSync(socket)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.startsWith('example.com_gpu'))).toEqual([]);
  });

  it('shuts down when its abort signal fires, and leaves process signals alone', async () => {
    sim = await createKubeletSim({ dir });
    const registered = sim.waitFor('registered', (e) => e.resource === GPU, 20_000);
    const abort = new AbortController();
    const before = process.listenerCount('SIGTERM');
    const p = await startPlugin({ signal: abort.signal });
    await registered;
    expect(process.listenerCount('SIGTERM')).toBe(before);
    const socket = p.resources()[0]?.socketPath ?? '';
    abort.abort();
    await p.stopped;
    expect(existsSync(socket)).toBe(false);
  });

  it('reports the state machine as typed events and as an async iterator', async () => {
    sim = await createKubeletSim({ dir });
    const p = createDevicePlugin({
      devicePluginDir: dir,
      resources: [{ name: GPU, source }],
    });
    plugin = p;
    const states: string[] = [];
    const iterating = (async () => {
      for await (const event of p.events()) {
        if (event.type === 'state') states.push(event.to);
        if (event.type === 'registered') break;
      }
    })();
    await p.start();
    await iterating;
    expect(states).toEqual(['serving', 'registering', 'registered']);
    expect(p.ready()).toBe(true);
  });

  // Helpers for the back-off test: a probe attached before the plugin exists.
  let probeTarget: DevicePlugin | undefined;
  const cleanups: Array<() => void> = [];
  function createDevicePluginEventsProbe(
    predicate: (e: DevicePluginEvent) => boolean,
    resolve: (e: DevicePluginEvent) => void,
  ): () => void {
    const timer = setInterval(() => {
      if (probeTarget === undefined) return;
      clearInterval(timer);
      probeTarget.on((e) => predicate(e) && resolve(e));
    }, 1);
    return () => clearInterval(timer);
  }
});

/** Polls a condition (state that has no event of its own) with a generous upper bound. */
async function waitUntil(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms: ${condition.toString()}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
