import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createKubeletSim, type KubeletSim } from '@kdp/kubelet-sim';
import { createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';
import { buildPluginBundle, spawnServe, stopProcess } from './plugin-process.fixture';
import {
  addSriovVf,
  addTwoPfNode,
  bindDriver,
  removeSriovVf,
  setCarrier,
  UPSTREAM_CONFIG,
  type FixturePf,
} from './sriov-node.fixture';

const WAIT = 30_000;

const NETDEV = 'intel.com/intel_sriov_netdevice';
const DPDK = 'intel.com/intel_sriov_dpdk';
const RDMA = 'nvidia.com/mlnx_sriov_rdma';
const REST = 'nvidia.com/mlnx_rest';

beforeAll(buildPluginBundle, 60_000);

describe('sriov-device-plugin serve against kubelet-sim', () => {
  let fixture: SysfsFixture;
  let node: { intel: FixturePf; mellanox: FixturePf };
  let sim: KubeletSim;
  let child: ChildProcess | undefined;
  let stderr = '';
  const logWaiters = new Set<() => void>();
  /** Resolves once the plugin logged a line containing `text` (after the call). */
  const waitForLog = (text: string): Promise<void> => {
    const from = stderr.length;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no log line with ${text}; got ${stderr}`)), WAIT);
      const check = (): void => {
        if (!stderr.slice(from).includes(text)) return;
        clearTimeout(timer);
        logWaiters.delete(check);
        resolve();
      };
      logWaiters.add(check);
    });
  };
  let dpDir: string;
  let devinfo: string;
  let configFile: string;

  const start = async (): Promise<void> => {
    const registered = Promise.all(
      [NETDEV, DPDK, RDMA, REST].map((name) =>
        sim.waitFor('devices', (e) => e.resource === name && e.devices.length > 0, WAIT),
      ),
    );
    child = spawnServe(
      fixture,
      [
        '--device-plugin-dir',
        dpDir,
        '--config',
        configFile,
        '--devinfo-dir',
        devinfo,
        '--poll-interval',
        '200',
        '--vanished-grace',
        '0',
      ],
      (text) => {
        stderr += text;
        for (const waiter of [...logWaiters]) waiter();
      },
    );
    await registered;
  };

  beforeEach(async () => {
    fixture = createSysfsFixture();
    node = addTwoPfNode(fixture);
    dpDir = join(fixture.base, 'dp');
    devinfo = join(fixture.base, 'devinfo');
    configFile = join(fixture.base, 'config.json');
    writeFileSync(configFile, UPSTREAM_CONFIG);
    mkdirSync(join(fixture.devRoot, 'net'), { recursive: true });
    writeFileSync(join(fixture.devRoot, 'vhost-net'), '');
    writeFileSync(join(fixture.devRoot, 'net', 'tun'), '');
    sim = await createKubeletSim({ dir: dpDir });
    stderr = '';
    await start();
  }, 60_000);

  afterEach(async () => {
    await stopProcess(child);
    child = undefined;
    await sim.close();
    fixture.remove();
  });

  it('advertises every pool with NUMA topology and answers Allocate exactly as upstream', async () => {
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
  }, 60_000);

  it('shows an sriov_numvfs change in the kubelet without a restart', async () => {
    const grown = sim.waitFor('devices', (e) => e.resource === NETDEV && e.devices.length === 5, WAIT);
    const vf = { address: '0000:3b:03.0', driver: 'iavf', netdev: 'ens1f0v8', iommuGroup: 108 };
    addSriovVf(fixture, node.intel, vf, 8);
    await grown;
    expect(sim.resource(NETDEV)?.healthy).toContain('0000:3b:03.0');

    const shrunk = sim.waitFor('devices', (e) => e.resource === NETDEV && e.devices.length === 4, WAIT);
    removeSriovVf(fixture, node.intel.address, vf.address, 8, 8);
    await shrunk;
    expect(child?.exitCode).toBeNull();
  }, 60_000);

  it('marks VFs unhealthy while their PF has no carrier or they lose their driver, and healthy again', async () => {
    const down = Promise.all(
      [NETDEV, DPDK].map((name) =>
        sim.waitFor('devices', (e) => e.resource === name && e.unhealthy.length === 4, WAIT),
      ),
    );
    const before = Date.now();
    setCarrier(fixture, node.intel.address, node.intel.netdev, false);
    await down;
    expect(Date.now() - before).toBeLessThan(WAIT);
    expect(sim.resource(RDMA)?.unhealthy).toHaveLength(0);

    const up = sim.waitFor('devices', (e) => e.resource === NETDEV && e.healthy.length === 4, WAIT);
    setCarrier(fixture, node.intel.address, node.intel.netdev, true);
    await up;

    const unbound = sim.waitFor(
      'devices',
      (e) => e.resource === DPDK && e.unhealthy.includes('0000:3b:02.5'),
      WAIT,
    );
    bindDriver(fixture, '0000:3b:02.5', undefined);
    await unbound;
    const rebound = sim.waitFor(
      'devices',
      (e) => e.resource === DPDK && e.healthy.includes('0000:3b:02.5'),
      WAIT,
    );
    bindDriver(fixture, '0000:3b:02.5', 'vfio-pci');
    await rebound;
  }, 60_000);

  it('moves a VF between pools on a driver rebind and follows a config change without a restart', async () => {
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

    const removed = waitForLog('pool removed from the configuration; resource stopped');
    writeFileSync(configFile, JSON.stringify({ resourceList: config.resourceList.slice(0, 1) }));
    await removed;
    expect(child?.exitCode).toBeNull();
  }, 60_000);
});
