import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createKubeletSim, type KubeletSim } from '@kdp/kubelet-sim';
import { bundleEntry, spawnPlugin, type EntryBundle, type PluginProcess } from '@kdp/kubelet-sim/testing';
import { createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';
import {
  addSriovVf,
  addTwoPfNode,
  bindDriver,
  emulateUevents,
  removeSriovVf,
  setCarrier,
  UPSTREAM_CONFIG,
  type FixturePf,
} from './testing/sriov-node';

const WAIT = 30_000;
/** How soon a change must reach the kubelet at the default 500 ms probe interval: generous, far below WAIT. */
const PROMPT_MS = 5000;

const now = (): number => performance.timeOrigin + performance.now();

/** `kdp_scans_total` of the sriov plugin by trigger (start, watch, probe, rescan, interval), from /metrics. */
async function scansByTrigger(metricsUrl: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith('kdp_scans_total{') || !line.includes('plugin="sriov"')) continue;
    const trigger = /trigger="([a-z]+)"/.exec(line)?.[1];
    if (trigger !== undefined) counts[trigger] = Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return counts;
}

const NETDEV = 'intel.com/intel_sriov_netdevice';
const DPDK = 'intel.com/intel_sriov_dpdk';
const RDMA = 'nvidia.com/mlnx_sriov_rdma';
const REST = 'nvidia.com/mlnx_rest';

let bundle: EntryBundle;
beforeAll(() => {
  bundle = bundleEntry(join(__dirname, 'main.ts'));
}, 60_000);
afterAll(() => bundle.remove());

describe('sriov-device-plugin serve against kubelet-sim', () => {
  let fixture: SysfsFixture;
  let node: { intel: FixturePf; mellanox: FixturePf };
  let sim: KubeletSim;
  let plugin: PluginProcess | undefined;
  /** Resolves once `predicate` holds (checked every 50 ms); rejects after WAIT with `what`. */
  const waitUntil = async (predicate: () => boolean, what: string): Promise<void> => {
    const deadline = Date.now() + WAIT;
    while (!predicate()) {
      if (Date.now() > deadline)
        throw new Error(`${what} never happened; stderr:\n${plugin?.stderr() ?? ''}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  /** Resolves once the plugin logged a line containing `text` (after the call). */
  const waitForLog = (text: string): Promise<void> => {
    const from = plugin?.stderr().length ?? 0;
    return waitUntil(() => (plugin?.stderr() ?? '').slice(from).includes(text), `a log line with ${text}`);
  };
  let dpDir: string;
  let devinfo: string;
  let configFile: string;

  /**
   * Starts `serve` at the default probe interval (500 ms), vanished devices dropped at once unless `extra`
   * says otherwise.
   */
  const start = async (extra: readonly string[] = []): Promise<PluginProcess> => {
    const registered = Promise.all(
      [NETDEV, DPDK, RDMA, REST].map((name) =>
        sim.waitFor('devices', (e) => e.resource === name && e.devices.length > 0, WAIT),
      ),
    );
    plugin = spawnPlugin(bundle.path, [
      'serve',
      ...['--sysfs-root', fixture.root, '--proc-root', fixture.procRoot, '--dev-root', fixture.devRoot],
      ...['--device-plugin-dir', dpDir, '--config', configFile, '--devinfo-dir', devinfo],
      ...(extra.includes('--vanished-grace') ? [] : ['--vanished-grace', '0']),
      ...extra,
    ]);
    await registered;
    return plugin;
  };

  beforeEach(async () => {
    fixture = createSysfsFixture();
    node = addTwoPfNode(fixture);
    dpDir = join(fixture.base, 'dp');
    devinfo = join(fixture.base, 'devinfo');
    configFile = join(fixture.base, 'config.json');
    writeFileSync(configFile, UPSTREAM_CONFIG);
    mkdirSync(dpDir);
    fixture.addDevNode('/dev/vhost-net', 10, 238);
    fixture.addDevNode('/dev/net/tun', 10, 200);
    sim = await createKubeletSim({ dir: dpDir });
  }, 60_000);

  afterEach(async () => {
    const running = plugin;
    plugin = undefined;
    await running?.kill();
    await sim.close();
    fixture.remove();
  });

  it('advertises every pool with NUMA topology and answers Allocate exactly as upstream', async () => {
    const running = await start();
    expect(sim.resource(NETDEV)?.healthy).toEqual([
      '0000:3b:02.0',
      '0000:3b:02.1',
      '0000:3b:02.2',
      '0000:3b:02.3',
    ]);
    expect(sim.resource(DPDK)?.devices.map((d) => d.topology?.nodes?.map((n) => n.ID))).toEqual([
      [0],
      [0],
      [0],
      [0],
    ]);
    expect(sim.resource(RDMA)?.capacity).toBe(4);
    expect(sim.resource(REST)?.healthy).toEqual(['0000:d8:00.6', '0000:d8:01.0', '0000:d8:01.1']);
    // Every pool answers GetPreferredAllocation.
    const preferred = [NETDEV, DPDK, RDMA, REST].map(
      (name) => sim.resource(name)?.options.getPreferredAllocationAvailable,
    );
    expect(preferred).toEqual([true, true, true, true]);

    const dpdk = await sim.admit({ pod: 'dpdk', container: 'c', resource: DPDK, count: 2 });
    const [a, b] = dpdk.deviceIds;
    const group = (id: string | undefined): number => 100 + Number(id?.slice(-1));
    expect(dpdk.response.envs).toEqual({
      PCIDEVICE_INTEL_COM_INTEL_SRIOV_DPDK: `${a},${b}`,
      PCIDEVICE_INTEL_COM_INTEL_SRIOV_DPDK_INFO:
        `{"${a}":{"generic":{"deviceID":"${a}"},"vfio":{"dev-mount":"/dev/vfio/${group(a)}","mount":"/dev/vfio/vfio"}},` +
        `"${b}":{"generic":{"deviceID":"${b}"},"vfio":{"dev-mount":"/dev/vfio/${group(b)}","mount":"/dev/vfio/vfio"}}}`,
    });
    expect(dpdk.response.devices).toEqual([
      { containerPath: '/dev/vfio/vfio', hostPath: '/dev/vfio/vfio', permissions: 'rw' },
      { containerPath: `/dev/vfio/${group(a)}`, hostPath: `/dev/vfio/${group(a)}`, permissions: 'rw' },
      { containerPath: `/dev/vfio/${group(b)}`, hostPath: `/dev/vfio/${group(b)}`, permissions: 'rw' },
    ]);
    expect(dpdk.response.mounts).toEqual([]);
    const file = join(devinfo, `intel.com-intel_sriov_dpdk-${a}-device.json`);
    expect(readFileSync(file, 'utf8')).toBe(`{"type":"pci","version":"1.1.0","pci":{"pci-address":"${a}"}}`);
    expect(statSync(file).mode & 0o777).toBe(0o444);

    const rdma = await sim.admit({ pod: 'rdma', container: 'c', resource: RDMA, count: 1 });
    const id = rdma.deviceIds[0] as string;
    const n = ['0000:d8:00.2', '0000:d8:00.3', '0000:d8:00.4', '0000:d8:00.5'].indexOf(id) + 2;
    expect(rdma.response.envs).toEqual({
      PCIDEVICE_NVIDIA_COM_MLNX_SRIOV_RDMA: id,
      PCIDEVICE_NVIDIA_COM_MLNX_SRIOV_RDMA_INFO:
        `{"${id}":{"generic":{"deviceID":"${id}"},"rdma":{"issm":"/dev/infiniband/issm${n}",` +
        `"rdma_cm":"/dev/infiniband/rdma_cm","rdma_dev":"mlx5_${n}","umad":"/dev/infiniband/umad${n}",` +
        `"uverbs":"/dev/infiniband/uverbs${n}"}}}`,
    });
    expect(rdma.response.devices?.map((d) => d.hostPath)).toEqual([
      `/dev/infiniband/uverbs${n}`,
      `/dev/infiniband/issm${n}`,
      `/dev/infiniband/umad${n}`,
      '/dev/infiniband/rdma_cm',
    ]);
    expect(readFileSync(join(devinfo, `nvidia.com-mlnx_sriov_rdma-${id}-device.json`), 'utf8')).toBe(
      `{"type":"pci","version":"1.1.0","pci":{"pci-address":"${id}","rdma-device":"mlx5_${n}"}}`,
    );

    // needVhostNet (the second selector of mlnx_rest, matching only VF 7): /dev/vhost-net and /dev/net/tun
    // are device nodes on this host, so they are handed over, once.
    const rest = await sim.admit({ pod: 'rest', container: 'c', resource: REST, count: 3 });
    expect(rest.response.devices?.map((d) => d.hostPath)).toEqual(['/dev/vhost-net', '/dev/net/tun']);

    // SIGTERM: exit 0, and the device-info files written at Allocate are gone, as upstream cleans up.
    expect(readdirSync(devinfo)).toHaveLength(6);
    running.child.kill('SIGTERM');
    expect(await running.exited).toEqual([0, null]);
    expect(readdirSync(devinfo)).toEqual([]);
  }, 60_000);

  it('shows an sriov_numvfs change in the kubelet without a restart and drops the device-info of a gone VF', async () => {
    await start();
    const grown = sim.waitFor('devices', (e) => e.resource === NETDEV && e.devices.length === 5, WAIT);
    const vf = { address: '0000:3b:03.0', driver: 'iavf', netdev: 'ens1f0v8', iommuGroup: 108 };
    addSriovVf(fixture, node.intel, vf, 8);
    await grown;
    expect(sim.resource(NETDEV)?.healthy).toContain('0000:3b:03.0');
    await sim.admit({ pod: 'all', container: 'c', resource: NETDEV, count: 5 });
    const file = join(devinfo, 'intel.com-intel_sriov_netdevice-0000:3b:03.0-device.json');
    expect(existsSync(file)).toBe(true);
    sim.release('all');

    const shrunk = sim.waitFor('devices', (e) => e.resource === NETDEV && e.devices.length === 4, WAIT);
    removeSriovVf(fixture, node.intel.address, vf.address, 8, 8);
    await shrunk;
    await waitUntil(() => !existsSync(file), `removal of ${file}`);
    expect(plugin?.child.exitCode).toBeNull();
  }, 60_000);

  it('keeps a vanished VF advertised as Unhealthy for --vanished-grace', async () => {
    await start(['--vanished-grace', '1h']);
    const vf = node.intel.vfs[7];
    const gone = sim.waitFor(
      'devices',
      (e) => e.resource === DPDK && e.unhealthy.includes('0000:3b:02.7') && e.healthy.length === 3,
      WAIT,
    );
    const logged = waitForLog('"problem":"no longer found by the scan"');
    removeSriovVf(fixture, node.intel.address, vf?.address ?? '', 7, 7);
    await gone;
    await logged;
  }, 60_000);

  it.each([
    ['directory lists', false],
    ['the uevent count', true],
  ])(
    'marks VFs unhealthy while their PF has no carrier or they lose their driver, and healthy again, through the change probe (%s)',
    async (_mode, uevents) => {
      if (uevents) emulateUevents(fixture);
      await start(['--metrics-address', '127.0.0.1:0']);
      const metricsUrl = (): string | undefined => /"url":"([^"]+)"/.exec(plugin?.stderr() ?? '')?.[1];
      await waitUntil(() => metricsUrl() !== undefined, 'the metrics server');
      const url = metricsUrl() ?? '';
      // What the kubelet saw of the kernel-netdevice pool, update by update: its unhealthy VFs.
      const netdev: string[][] = [];
      const record = (event: { resource: string; unhealthy: string[] }): void => {
        if (event.resource === NETDEV) netdev.push(event.unhealthy);
      };
      sim.events.on('devices', record);
      const before = await scansByTrigger(url);
      /** Applies `change` and resolves with how long it took until the kubelet saw `seen`. */
      const latency = async (
        change: () => void,
        seen: (e: { resource: string; healthy: string[]; unhealthy: string[] }) => boolean,
      ) => {
        const event = sim.waitFor('devices', seen, WAIT);
        const at = now();
        change();
        return (await event).at - at;
      };
      const intel = node.intel;

      // Only sysfs attribute files and links change below, none in a watched directory: the probe must see them.
      const down = await latency(
        () => setCarrier(fixture, intel.address, intel.netdev, false),
        (e) => e.resource === DPDK && e.unhealthy.length === 4,
      );
      expect(sim.resource(NETDEV)?.unhealthy).toHaveLength(4);
      expect(sim.resource(RDMA)?.unhealthy).toHaveLength(0);
      const up = await latency(
        () => setCarrier(fixture, intel.address, intel.netdev, true),
        (e) => e.resource === DPDK && e.healthy.length === 4,
      );
      expect(sim.resource(NETDEV)?.healthy).toHaveLength(4);
      // An iavf VF (no /dev node of its own) unbound, then bound again.
      const unbound = await latency(
        () => bindDriver(fixture, '0000:3b:02.1', undefined),
        (e) => e.resource === NETDEV && e.unhealthy.includes('0000:3b:02.1'),
      );
      const rebound = await latency(
        () => bindDriver(fixture, '0000:3b:02.1', 'iavf'),
        (e) => e.resource === NETDEV && e.unhealthy.length === 0,
      );
      sim.events.off('devices', record);
      const after = await scansByTrigger(url);
      const scans = (trigger: string): number => (after[trigger] ?? 0) - (before[trigger] ?? 0);
      process.stderr.write(`sriov probe latencies (ms): ${JSON.stringify({ down, up, unbound, rebound })}\n`);

      // In order, one update per change, nothing in between: down, up, unbound, bound.
      const all = intel.vfs.slice(0, 4).map((vf) => vf.address);
      expect(netdev).toEqual([all, [], ['0000:3b:02.1'], []]);
      // Four changes, four scans started by the probe and none by a watch (a probe that skipped carrier or the
      // driver lists would have started none: without a difference it never scans).
      expect([scans('watch'), scans('interval')]).toEqual([0, 0]);
      expect(scans('probe')).toBeGreaterThanOrEqual(4);
      for (const ms of [down, up, unbound, rebound]) expect(ms).toBeLessThan(PROMPT_MS);
    },
    60_000,
  );

  it('moves a VF between pools on a driver rebind and follows a config change without a restart', async () => {
    await start();
    const moved = sim.waitFor('devices', (e) => e.resource === DPDK && e.devices.length === 5, WAIT);
    bindDriver(fixture, '0000:3b:02.3', 'vfio-pci');
    await moved;
    expect(sim.resource(NETDEV)?.devices.map((d) => d.ID)).not.toContain('0000:3b:02.3');

    const config = JSON.parse(UPSTREAM_CONFIG) as { resourceList: Record<string, unknown>[] };
    config.resourceList.push({
      resourceName: 'mlnx_all',
      resourcePrefix: 'nvidia.com',
      selectors: { vendors: ['15b3'] },
    });
    const added = sim.waitFor(
      'devices',
      (e) => e.resource === 'nvidia.com/mlnx_all' && e.devices.length === 1,
      WAIT,
    );
    const refused = waitForLog('configuration reload failed; keeping the running configuration');
    writeFileSync(configFile, '{"resourceList": [{"resourceName": "bad/name"}]}');
    await refused;
    expect(sim.resource(DPDK)?.healthy).toHaveLength(5);

    writeFileSync(configFile, JSON.stringify(config));
    await added;
    expect(sim.resource('nvidia.com/mlnx_all')?.devices.map((d) => d.ID)).toEqual(['0000:d8:00.7']);
    expect(readdirSync(dpDir).length).toBeGreaterThan(4);

    const removed = waitForLog('resource gone; removed');
    writeFileSync(configFile, JSON.stringify({ resourceList: config.resourceList.slice(0, 1) }));
    await removed;
    expect(plugin?.child.exitCode).toBeNull();
  }, 60_000);
});
