import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveCdiDevices, startPluginRun, type PluginRun } from '@kdp/core/testing';
import { createKubeletSim, type KubeletSim } from '@kdp/kubelet-sim';
import { usbPlugin } from './plugin';
import { defined } from './testing/defined';
import { addSampleMachine, SAMPLE_CONFIG } from './testing/sample-machine';
import { createUsbFixture, type UsbFixture } from './testing/usb-fixture';

// What the runtime gives every plugin, checked on this one: the change probe at the default interval, CDI,
// registration through the plugin watcher, NUMA topology and GetPreferredAllocation.

const FTDI = 'example.com/ftdi';
/** The sample configuration, and a generic-device-plugin path group bind-mounting /dev/snd. */
const CONFIG = `${SAMPLE_CONFIG}devices:
  - name: sound
    groups: [{ paths: [{ path: /dev/snd, type: Mount, readOnly: true }] }]
`;

/** `kdp_scans_total` by trigger and `kdp_change_probes_total` by outcome, from /metrics. */
async function scanCounts(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const match = /^kdp_(scans|change_probes)_total\{.*(?:trigger|outcome)="([a-z]+)".*\} (\d+)$/.exec(line);
    if (match !== null) counts[`${match[1]}:${match[2]}`] = Number(match[3]);
  }
  return counts;
}

jest.setTimeout(60_000);

describe('usb-device-plugin serve: probe, CDI, plugin watcher, topology', () => {
  let usb: UsbFixture;
  let dir: string;
  let sim: KubeletSim | undefined;
  let run: PluginRun | undefined;

  beforeEach(() => {
    usb = createUsbFixture();
    addSampleMachine(usb);
    // A third adapter on a controller of NUMA node 1; its serial sorts first, so a kubelet taking devices in
    // ID order would pick it.
    usb.addRootHub(3, { address: '0000:80:14.0', numaNode: 1 });
    usb.addDevice({ portPath: '3-1', vendor: '0403', product: '6001', devnum: 2, serial: 'A0000001' });
    usb.sys.addDevNode('/dev/snd/controlC0', 116, 0);
    dir = mkdtempSync(join(tmpdir(), 'kdp-usr-'));
    writeFileSync(join(usb.sys.base, 'usb.yaml'), CONFIG);
  });

  afterEach(async () => {
    if (run !== undefined) expect(await run.stop()).toBe(0);
    run = undefined;
    await sim?.close();
    sim = undefined;
    usb.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  /** `serve` on the fixture (no --poll-interval: the plugin's default paces the probe); waits for 3 FTDIs. */
  const serve = async (extra: readonly string[] = [], pluginsRegistryDir?: string) => {
    sim = await createKubeletSim({
      dir,
      ...(pluginsRegistryDir !== undefined ? { pluginsRegistryDir } : {}),
    });
    run = startPluginRun(usbPlugin, [
      'serve',
      ...['--sysfs-root', usb.sys.root, '--dev-root', usb.sys.devRoot, '--device-plugin-dir', dir],
      ...['--config', join(usb.sys.base, 'usb.yaml'), '--log-level', 'info', ...extra],
    ]);
    const kubelet = sim;
    await kubelet
      .until(FTDI, (state) => state.healthy.length === 3, 20_000)
      .catch((error: unknown) => {
        throw new Error(`${String(error)}: ${run?.stderr() ?? ''}`);
      });
    return kubelet;
  };

  it('advertises the NUMA node of each controller and prefers adapters of one NUMA node and controller', async () => {
    const kubelet = await serve();
    const state = defined(kubelet.resource(FTDI));
    expect(state.options.getPreferredAllocationAvailable).toBe(true);
    expect(state.devices.map((d) => [d.ID, d.topology?.nodes?.map((n) => n.ID)])).toEqual([
      ['A0000001', [1]],
      ['A50285BI', [0]],
      ['A7042Z1Q', [0]],
    ]);
    const admission = await kubelet.admit({ pod: 'p', container: 'c', resource: FTDI, count: 2 });
    expect([...admission.deviceIds].sort()).toEqual(['A50285BI', 'A7042Z1Q']);
  });

  it('registers through the plugin watcher with --registration plugin-watcher', async () => {
    const registry = join(dir, 'plugins_registry');
    const kubelet = await serve(
      ['--registration', 'plugin-watcher', '--plugins-registry-dir', registry],
      registry,
    );
    const state = defined(kubelet.resource(FTDI));
    // Registered by the watcher: the endpoint is the socket's full path in the registry directory.
    expect(state.endpoint.startsWith(`${registry}/`)).toBe(true);
    expect(existsSync(state.endpoint)).toBe(true);
    const admission = await kubelet.admit({ pod: 'p', container: 'c', resource: FTDI, count: 1 });
    expect(admission.response.devices).toHaveLength(2);
  });

  it('--device-list-strategy cdi: CDI names that resolve to what device-specs mode hands out', async () => {
    const cdiDir = join(usb.sys.base, 'cdi');
    const requests = [
      { resource: FTDI, count: 3 },
      { resource: 'example.com/camera', count: 2 },
      { resource: 'example.com/keyboard', count: 1 },
      { resource: 'example.com/serial', count: 1 },
      { resource: 'example.com/zigbee', count: 1 },
      { resource: 'squat.ai/sound', count: 1 },
    ];
    const admitAll = async (kubelet: KubeletSim, tag: string) => {
      const out = [];
      for (const [i, request] of requests.entries()) {
        await kubelet.until(request.resource, (s) => s.healthy.length === request.count, 20_000);
        out.push(await kubelet.admit({ pod: `${tag}${i}`, container: 'c', ...request }));
        kubelet.release(`${tag}${i}`);
      }
      return out;
    };
    const cdi = await admitAll(await serve(['--device-list-strategy', 'cdi', '--cdi-dir', cdiDir]), 'cdi');
    const resolved = cdi.map((a) =>
      resolveCdiDevices(
        cdiDir,
        a.response.cdiDevices.map((d) => d.name),
      ),
    );
    expect(await defined(run).stop()).toBe(0);
    run = undefined;
    await sim?.close();
    const specs = await admitAll(await serve(), 'specs');

    const byPath = <T extends { containerPath: string }>(list: readonly T[]) =>
      [...list].sort((a, b) => a.containerPath.localeCompare(b.containerPath));
    for (const [i, admission] of cdi.entries()) {
      const expected = defined(specs[i]).response;
      // cdi alone: no device nodes or mounts in the answer, the env still there.
      expect(admission.response.devices).toEqual([]);
      expect(admission.response.mounts).toEqual([]);
      expect(admission.response.envs).toEqual(expected.envs);
      expect(admission.response.cdiDevices.length).toBeGreaterThan(0);
      const { devices, mounts } = defined(resolved[i]);
      expect(byPath(devices).map((d) => [d.containerPath, d.hostPath])).toEqual(
        byPath(expected.devices).map((d) => [d.containerPath, d.hostPath]),
      );
      expect(byPath(mounts).map((m) => [m.containerPath, m.hostPath, m.readOnly])).toEqual(
        byPath(expected.mounts).map((m) => [m.containerPath, m.hostPath, m.readOnly]),
      );
    }
    expect(resolved.flatMap((r) => r.devices).map((d) => d.hostPath)).toEqual(
      expect.arrayContaining([
        '/dev/ttyUSB2',
        '/dev/ttyACM0',
        '/dev/video0',
        '/dev/hidraw0',
        '/dev/input/event3',
      ]),
    );
    // Both shares of the camera are one CDI device, named by the camera's serial.
    expect(cdi[1]?.response.cdiDevices.map((d) => d.name)).toEqual([
      'k8s.device-plugin.example.com/camera=9C8E2F10',
    ]);
    expect(resolved.flatMap((r) => r.mounts)).toEqual([
      { containerPath: '/dev/snd', hostPath: '/dev/snd', readOnly: true },
    ]);
  });

  it('a device that shows in sysfs alone is found by the change probe at the default interval; idle ticks scan nothing', async () => {
    const kubelet = await serve(['--metrics-address', '127.0.0.1:0']);
    const url = (await defined(run).waitForLog((line) => typeof line.url === 'string')).url as string;
    // Idle: wait for four probe ticks (500 ms each) that found nothing; no scan may run meanwhile. Counted from
    // the first such tick: the first tick scans once more (the first probe's baseline was read after the scan).
    let idle = await scanCounts(url);
    for (const start = Date.now(); (idle['change_probes:unchanged'] ?? 0) === 0;) {
      if (Date.now() - start > 10_000) throw new Error(`no unchanged probe: ${JSON.stringify(idle)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      idle = await scanCounts(url);
    }
    let now = idle;
    for (
      const start = Date.now();
      (now['change_probes:unchanged'] ?? 0) < (idle['change_probes:unchanged'] ?? 0) + 4;
    ) {
      if (Date.now() - start > 10_000) throw new Error(`no idle probe ticks: ${JSON.stringify(now)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      now = await scanCounts(url);
    }
    const scans = (counts: Record<string, number>) =>
      Object.entries(counts)
        .filter(([k]) => k.startsWith('scans:'))
        .reduce((n, [, v]) => n + v, 0);
    expect(scans(now)).toBe(scans(idle));

    // Plugged without /dev nodes (udev not done yet): no watched directory changes, only sysfs.
    const id = 'FT0PROBE';
    const plugged = kubelet.waitFor('devices', (e) => e.resource === FTDI && e.healthy.includes(id), 5_000);
    usb.addDevice({
      portPath: '1-4.3',
      vendor: '0403',
      product: '6001',
      devnum: 9,
      serial: id,
      devNodes: false,
    });
    await plugged;
    const admission = await kubelet.admit({ pod: 'p', container: 'c', resource: FTDI, count: 4 });
    expect(admission.response.devices.map((d) => d.hostPath)).toContain('/dev/bus/usb/001/009');

    // Allocated, then unplugged: kept Unhealthy; plugged again: Healthy. Each change from the probe alone.
    const unhealthy = kubelet.waitFor(
      'devices',
      (e) => e.resource === FTDI && e.unhealthy.includes(id),
      5_000,
    );
    usb.removeDevice('1-4.3');
    await unhealthy;
    const healthy = kubelet.waitFor('devices', (e) => e.resource === FTDI && e.healthy.includes(id), 5_000);
    usb.addDevice({
      portPath: '1-4.3',
      vendor: '0403',
      product: '6001',
      devnum: 10,
      serial: id,
      devNodes: false,
    });
    await healthy;
    const after = await scanCounts(url);
    expect((after['scans:watch'] ?? 0) - (now['scans:watch'] ?? 0)).toBe(0);
    expect((after['scans:probe'] ?? 0) - (now['scans:probe'] ?? 0)).toBeGreaterThanOrEqual(3);
  });
});
