import { existsSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveCdiDevices } from '@kdp/core/testing';
import { createKubeletSim, type KubeletSim } from '@kdp/kubelet-sim';
import { bundleEntry, spawnPlugin, type EntryBundle, type PluginProcess } from '@kdp/kubelet-sim/testing';
import type { SysfsFixture } from '@kdp/topology/testing';
import { addMigInstance } from './testing/driver-files';
import { rootFlags } from './testing/fixture-devices';
import { bindDriver, replugGpu, unbindDriver, unplugGpu } from './testing/hot-plug';
import { AMD_GPUS, buildAmdMachine, buildNvidiaMachine, NVIDIA_UUIDS } from './testing/machines';

jest.setTimeout(120_000);

// koffi stays external as in the build target; from the bundle's temp dir it does not load, so NVML is off.
let bundle: EntryBundle;
beforeAll(() => {
  bundle = bundleEntry(join(__dirname, 'main.ts'), { external: ['koffi'] });
}, 60_000);
afterAll(() => bundle.remove());

/** `gpu-device-plugin <args>` as a process. */
const spawn = (args: readonly string[]): PluginProcess => spawnPlugin(bundle.path, args);

const now = (): number => performance.timeOrigin + performance.now();

/** `kdp_scans_total` of the gpu plugin by trigger (start, watch, probe, rescan, interval), from /metrics. */
async function scansByTrigger(metricsUrl: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith('kdp_scans_total{') || !line.includes('plugin="gpu"')) continue;
    const trigger = /trigger="([a-z]+)"/.exec(line)?.[1];
    if (trigger !== undefined) counts[trigger] = Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return counts;
}

/** Resolves with the first JSON log line of a process that `predicate` accepts (30 s at most). */
function waitForLine(plugin: PluginProcess, predicate: (line: Record<string, unknown>) => boolean) {
  return new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`log line not seen: ${plugin.stderr()}`)), 30_000);
    const check = (): void => {
      for (const text of plugin.stderr().split('\n')) {
        if (!text.startsWith('{')) continue;
        const line = JSON.parse(text) as Record<string, unknown>;
        if (!predicate(line)) continue;
        clearTimeout(timer);
        plugin.child.stderr?.off('data', check);
        resolve(line);
        return;
      }
    };
    plugin.child.stderr?.on('data', check);
    check();
  });
}

describe('gpu-device-plugin serve against kubelet-sim', () => {
  let fixture: SysfsFixture;
  let dir: string;
  let sim: KubeletSim;
  let plugin: PluginProcess;
  let cdiDir: string;
  let metricsUrl: string;
  const resource = 'nvidia.com/gpu';
  const gpu1 = NVIDIA_UUIDS['0000:04:00.0'];
  const gpu2 = NVIDIA_UUIDS['0000:83:00.0'];
  const migGi3 = `MIG-${NVIDIA_UUIDS['0000:86:00.0']}/3/0`;
  const migDir = 'driver/nvidia/capabilities/gpu3/mig/gi3';

  beforeAll(async () => {
    fixture = buildNvidiaMachine();
    // A third MIG instance whose /dev nodes exist, its procfs directory kept aside until a test creates it.
    addMigInstance(fixture, 3, 3, [0]);
    renameSync(join(fixture.procRoot, migDir), join(fixture.base, 'gi3'));
    dir = mkdtempSync(join(tmpdir(), 'kdp-gs-'));
    const config = join(fixture.base, 'gpu.yaml');
    writeFileSync(
      config,
      'nvidia:\n  migStrategy: single\n  passDeviceSpecs: true\n  deviceListStrategy: [envvar, cdi]\n',
    );
    cdiDir = join(fixture.base, 'cdi');
    sim = await createKubeletSim({ dir });
    // No --poll-interval: the plugin's default (500 ms) paces the change probe.
    plugin = spawn([
      'serve',
      ...rootFlags(fixture),
      ...['--device-plugin-dir', dir, '--config', config, '--cdi-dir', cdiDir],
      ...['--metrics-address', '127.0.0.1:0'],
    ]);
    metricsUrl = (await waitForLine(plugin, (line) => typeof line.url === 'string')).url as string;
    await sim
      .until(resource, (state) => state.healthy.length === 5)
      .catch((error: unknown) => {
        throw new Error(`no 5 healthy devices (${String(error)}): ${plugin.stderr()}`);
      });
  });

  afterAll(async () => {
    await plugin?.stop();
    await sim?.close();
    fixture?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  // The sysfs and procfs changes come first: inotify reports the /dev changes of the last test more than once,
  // and a scan repeated for such an event while a later test changes sysfs would find that change too.
  it('advertises every GPU with its NUMA node; Allocate: NVIDIA_VISIBLE_DEVICES, device nodes and CDI names', async () => {
    const state = sim.resource(resource);
    expect(state?.devices.map((d) => [d.ID, d.topology?.nodes?.map((n) => n.ID)]).sort()).toEqual(
      [
        [NVIDIA_UUIDS['0000:03:00.0'], [0]],
        [gpu1, [0]],
        [gpu2, [1]],
        [`MIG-${NVIDIA_UUIDS['0000:86:00.0']}/1/0`, [1]],
        [`MIG-${NVIDIA_UUIDS['0000:86:00.0']}/2/0`, [1]],
      ].sort(),
    );
    expect(state?.options.getPreferredAllocationAvailable).toBe(true);
    const admission = await sim.admit({ pod: 'p1', container: 'c', resource, count: 2, affinity: [1] });
    expect(admission.deviceIds).toHaveLength(2);
    const { envs, devices, cdiDevices } = admission.response;
    expect(envs.NVIDIA_VISIBLE_DEVICES?.split(',').sort()).toEqual([...admission.deviceIds].sort());
    expect(devices.map((d) => d.hostPath)).toEqual(
      expect.arrayContaining(['/dev/nvidiactl', '/dev/nvidia-uvm']),
    );
    const names = cdiDevices.map((d) => d.name);
    expect(names.sort()).toEqual(
      admission.deviceIds.map((id) => `k8s.device-plugin.nvidia.com/gpu=${id.replaceAll('/', ':')}`).sort(),
    );
    // The spec the runtime wrote gives what the device specs give: control nodes and each GPU's own.
    const byPath = (list: readonly { containerPath: string }[]) => list.map((d) => d.containerPath).sort();
    expect(byPath(resolveCdiDevices(cdiDir, names).devices)).toEqual(byPath(devices));
    sim.release('p1');
  });

  /** Breaks a GPU, waits for the kubelet to see it Unhealthy, repairs it, waits for Healthy; returns both latencies and the scans they took. */
  const roundTrip = async (id: string, breakIt: () => void, repair: () => void) => {
    const before = await scansByTrigger(metricsUrl);
    const unhealthy = sim.waitFor(
      'devices',
      (e) => e.resource === resource && e.unhealthy.includes(id),
      30_000,
    );
    const brokenAt = now();
    breakIt();
    const down = (await unhealthy).at - brokenAt;
    expect(sim.resource(resource)?.devices.map((d) => d.ID)).toContain(id);
    const healthy = sim.waitFor('devices', (e) => e.resource === resource && e.healthy.includes(id), 30_000);
    const repairedAt = now();
    repair();
    const up = (await healthy).at - repairedAt;
    const after = await scansByTrigger(metricsUrl);
    const delta = (trigger: string) => (after[trigger] ?? 0) - (before[trigger] ?? 0);
    return { down, up, watch: delta('watch'), probe: delta('probe') };
  };

  it('a GPU unbound from nvidia and bound again: Unhealthy, then Healthy, by the probe (its driver link)', async () => {
    let driver = '';
    const trip = await roundTrip(
      gpu1,
      () => (driver = unbindDriver(fixture, '0000:04:00.0')),
      () => bindDriver(fixture, '0000:04:00.0', driver),
    );
    process.stderr.write(`driver link: ${JSON.stringify(trip)}\n`);
    expect(driver).toBe('nvidia');
    expect(trip.watch).toBe(0);
    expect(trip.probe).toBeGreaterThanOrEqual(2);
    expect(trip.down).toBeLessThan(5000);
    expect(trip.up).toBeLessThan(5000);
  });

  it('a GPU falling off the PCI bus (sysfs and procfs) and coming back: Unhealthy, then Healthy, by the probe', async () => {
    const trip = await roundTrip(
      gpu2,
      () => unplugGpu(fixture, '0000:83:00.0'),
      () => replugGpu(fixture, '0000:83:00.0'),
    );
    process.stderr.write(`PCI function: ${JSON.stringify(trip)}\n`);
    // No watched directory changed: only the change probe could start these scans.
    expect(trip.watch).toBe(0);
    expect(trip.probe).toBeGreaterThanOrEqual(2);
    expect(trip.down).toBeLessThan(5000);
    expect(trip.up).toBeLessThan(5000);
  });

  it('a MIG instance created in procfs is advertised, found by the probe', async () => {
    const before = await scansByTrigger(metricsUrl);
    const added = sim.waitFor(
      'devices',
      (e) => e.resource === resource && e.healthy.includes(migGi3),
      30_000,
    );
    const at = now();
    renameSync(join(fixture.base, 'gi3'), join(fixture.procRoot, migDir));
    const latency = (await added).at - at;
    const after = await scansByTrigger(metricsUrl);
    expect(sim.resource(resource)?.healthy).toHaveLength(6);
    expect((after.watch ?? 0) - (before.watch ?? 0)).toBe(0);
    expect((after.probe ?? 0) - (before.probe ?? 0)).toBeGreaterThanOrEqual(1);
    expect(latency).toBeLessThan(5000);
  });

  it('a device node removed and restored: Unhealthy, then Healthy, from the /dev watch alone', async () => {
    const trip = await roundTrip(
      gpu1,
      () => fixture.removeDevNode('/dev/nvidia1'),
      () => fixture.addDevNode('/dev/nvidia1', 195, 1),
    );
    process.stderr.write(`device node: ${JSON.stringify(trip)}\n`);
    // inotify starts the scan; the change probe (sysfs, procfs only) saw nothing, so it started none.
    expect(trip.watch).toBeGreaterThanOrEqual(2);
    expect(trip.probe).toBe(0);
    // Event-driven: well under the 500 ms probe period in practice; 5 s still fails a plugin that misses it.
    expect(trip.down).toBeLessThan(5000);
    expect(trip.up).toBeLessThan(5000);
  });

  it('SIGTERM: exits 0, unlinks its socket and removes its CDI spec', async () => {
    expect(readdirSync(cdiDir).filter((name) => name.endsWith('.json'))).toHaveLength(1);
    const endpoint = sim.resource(resource)?.endpoint as string;
    expect(await plugin.stop()).toEqual([0, null]);
    expect(existsSync(join(dir, endpoint))).toBe(false);
    expect(readdirSync(cdiDir).filter((name) => name.endsWith('.json'))).toEqual([]);
  });
});

describe('gpu-device-plugin serve before the kubelet is up', () => {
  it('stays up waiting for kubelet.sock, then registers when the kubelet starts', async () => {
    const fixture = buildNvidiaMachine();
    const dir = mkdtempSync(join(tmpdir(), 'kdp-gw-'));
    const plugin = spawn(['serve', ...rootFlags(fixture), '--device-plugin-dir', dir]);
    let sim: KubeletSim | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no "waiting" log: ${plugin.stderr()}`)), 30_000);
        const check = (): void => {
          if (!plugin.stderr().includes('waiting for the kubelet socket')) return;
          clearTimeout(timer);
          plugin.child.stderr?.off('data', check);
          resolve();
        };
        plugin.child.stderr?.on('data', check);
        check();
      });
      sim = await createKubeletSim({ dir });
      const registered = await sim.waitFor('registered', (e) => e.resource === 'nvidia.com/gpu', 30_000);
      expect(registered.resource).toBe('nvidia.com/gpu');
      expect(await plugin.stop()).toEqual([0, null]);
    } finally {
      await plugin.stop();
      await sim?.close();
      fixture.remove();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('gpu-device-plugin serve on a configuration change', () => {
  it('re-creates the resources with the new configuration; a bad version keeps the running one', async () => {
    const fixture = buildAmdMachine();
    const dir = mkdtempSync(join(tmpdir(), 'kdp-gr-'));
    const config = join(fixture.base, 'gpu.yaml');
    writeFileSync(config, 'sharing:\n  replicas: 1\n');
    const sim = await createKubeletSim({ dir });
    const first = sim.waitFor(
      'devices',
      (e) => e.resource === 'amd.com/gpu' && e.healthy.length === 4,
      30_000,
    );
    const plugin = spawn(['serve', ...rootFlags(fixture), '--device-plugin-dir', dir, '--config', config]);
    try {
      await first;
      const bad = new Promise<void>((resolve) => {
        const check = (): void => {
          if (plugin.stderr().includes('keeping the running configuration')) resolve();
        };
        plugin.child.stderr?.on('data', check);
      });
      writeFileSync(config, 'sharing:\n  replicas: nope\n');
      await bad;
      const replicas = sim.waitFor(
        'devices',
        (e) => e.resource === 'amd.com/gpu' && e.healthy.length === 8,
        30_000,
      );
      writeFileSync(config, 'sharing:\n  replicas: 2\n');
      const event = await replicas;
      expect(event.healthy).toContain(`${AMD_GPUS.a}::1`);
      expect(await plugin.stop()).toEqual([0, null]);
    } finally {
      await plugin.stop();
      await sim.close();
      fixture.remove();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
