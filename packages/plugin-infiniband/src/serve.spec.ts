import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ContainerAllocateResponse } from '@kdp/api';
import { resolveCdiDevices } from '@kdp/core/testing';
import { createKubeletSim, type KubeletSim } from '@kdp/kubelet-sim';
import type { SysfsFixture } from '@kdp/topology/testing';
import {
  bundleEntry,
  metricsUrlOf,
  scanCounts as countScans,
  spawnPlugin,
  type EntryBundle,
  type PluginProcess,
} from '@kdp/kubelet-sim/testing';
import { createRdmaMachine, setPortState, UPSTREAM_CONFIG_JSON } from './testing/rdma-machine';

let bundle: EntryBundle;
beforeAll(() => {
  bundle = bundleEntry(join(__dirname, 'main.ts'));
}, 60_000);

/** `infiniband-device-plugin serve` on the fixture machine, registering in `dir`, at the default poll interval. */
const spawnServe = (fixture: SysfsFixture, dir: string, extra: readonly string[] = []): PluginProcess =>
  spawnPlugin(bundle.path, [
    'serve',
    ...['--sysfs-root', fixture.root, '--dev-root', fixture.devRoot, '--device-plugin-dir', dir],
    ...extra,
  ]);
afterAll(() => bundle.remove());

const RDMA = (names: readonly string[], permissions: string) =>
  names.map((name) => ({
    containerPath: name.startsWith('/') ? name : `/dev/infiniband/${name}`,
    hostPath: name.startsWith('/') ? name : `/dev/infiniband/${name}`,
    permissions,
  }));

/** `kdp_scans_total` by trigger (`scans:probe`) and `kdp_change_probes_total` by outcome (`probes:unchanged`). */
const scanCounts = (url: string): Promise<Record<string, number>> => countScans(url, 'infiniband');

describe('infiniband-device-plugin serve against kubelet-sim', () => {
  let fixture: SysfsFixture;
  let dir: string;
  let sim: KubeletSim;
  let plugin: PluginProcess | undefined;
  const stderr = (): string => plugin?.stderr() ?? '';

  const serve = (...argv: string[]): PluginProcess => {
    plugin = spawnServe(fixture, dir, argv);
    return plugin;
  };

  /** Resolves once the resource's state (now or after a later event) satisfies `predicate`, within `timeoutMs`. */
  const until = async (
    resource: string,
    predicate: (state: {
      healthy: readonly string[];
      unhealthy: readonly string[];
      devices: readonly { ID: string }[];
    }) => boolean,
    timeoutMs = 30_000,
  ): Promise<void> => {
    await sim.until(resource, predicate, timeoutMs).catch((error: unknown) => {
      throw new Error(`${String(error)}\nplugin stderr:\n${stderr()}`);
    });
  };

  const waitForLog = async (predicate: () => boolean): Promise<void> => {
    for (let waited = 0; !predicate(); waited++) {
      if (waited > 300) throw new Error(`log line never appeared; stderr:\n${stderr()}`);
      await new Promise((resolve) => plugin?.child.stderr?.once('data', resolve));
    }
  };

  beforeEach(async () => {
    fixture = createRdmaMachine();
    dir = join(fixture.base, 'dp');
    mkdirSync(dir);
    sim = await createKubeletSim({ dir });
  });
  afterEach(async () => {
    await plugin?.kill();
    plugin = undefined;
    await sim.close();
    fixture.remove();
  });

  it('exclusive: one device per HCA, GetPreferredAllocation by NUMA node, Allocate gives only its nodes', async () => {
    const running = serve();
    await until('rdma/hca', (s) => s.healthy.length === 4);
    expect(sim.resource('rdma/hca')?.options.getPreferredAllocationAvailable).toBe(true);
    expect(sim.resource('rdma/hca')?.devices).toEqual(
      expect.arrayContaining([{ ID: '0000:3b:00.0', health: 'Healthy', topology: { nodes: [{ ID: 0 }] } }]),
    );

    // One HCA on node 0 is taken; asked for two more, GetPreferredAllocation picks the pair on node 1
    // (the kubelet's own order would have taken the remaining node-0 HCA first).
    const p0 = await sim.admit({ pod: 'p0', container: 'c', resource: 'rdma/hca', count: 1, affinity: [0] });
    expect(['0000:3b:00.0', '0000:5e:00.0']).toContain(p0.deviceIds[0]);
    const p1 = await sim.admit({ pod: 'p1', container: 'c', resource: 'rdma/hca', count: 2 });
    expect([...p1.deviceIds].sort()).toEqual(['0000:af:00.0', '0000:d8:00.0']);
    // Exclusive Allocate: only the granted HCAs' own nodes plus rdma_cm (as SR-IOV DP's isRdma gives), rw.
    expect(p1.response.devices).toEqual(
      expect.arrayContaining(RDMA(['uverbs1', 'umad2', 'issm2', 'uverbs3', 'umad4', 'rdma_cm'], 'rw')),
    );
    expect(p1.response.devices).toHaveLength(6);
    expect(p1.response.cdiDevices).toEqual([]);

    running.child.kill('SIGTERM');
    expect(await running.exited).toEqual([0, null]);
  }, 90_000);

  it('health and hot-plug reach the kubelet in order: sysfs changes through the probe, /dev through the watch', async () => {
    const running = serve('--metrics-address', '127.0.0.1:0');
    const url = await metricsUrlOf(running);
    await until('rdma/hca', (s) => s.healthy.length === 4);
    // The ConnectX-3's health in every ListAndWatch message from here on.
    const mlx4: string[] = [];
    sim.events.on('devices', (event: { resource: string; healthy: string[]; unhealthy: string[] }) => {
      if (event.resource !== 'rdma/hca') return;
      if (event.healthy.includes('0000:3b:00.0')) mlx4.push('Healthy');
      else mlx4.push(event.unhealthy.includes('0000:3b:00.0') ? 'Unhealthy' : 'absent');
    });

    // Idle: the probe runs on every tick and finds nothing, so no full scan follows. Counted from its first
    // unchanged reading: the first tick scans once more (the first probe's baseline was read after the scan).
    let idle = await scanCounts(url);
    for (let tries = 0; (idle['probes:unchanged'] ?? 0) === 0; tries++) {
      if (tries > 300) throw new Error(`no unchanged probe: ${JSON.stringify(idle)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      idle = await scanCounts(url);
    }
    for (let tries = 0; ; tries++) {
      const now = await scanCounts(url);
      if ((now['probes:unchanged'] ?? 0) >= (idle['probes:unchanged'] ?? 0) + 3) {
        expect(now['scans:probe'] ?? 0).toBe(idle['scans:probe'] ?? 0);
        expect(now['scans:interval']).toBeUndefined();
        break;
      }
      if (tries > 100) throw new Error(`no idle probes: ${JSON.stringify(now)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // Both IB ports of the ConnectX-3 go down: only files three levels below class/infiniband change, which no
    // watch reports (and no watch is set on sysfs at all), so only the probe's port `state` reads can see it.
    // Ten poll intervals are plenty; a probe that ignores port state never gets there.
    const before = await scanCounts(url);
    setPortState(fixture, 'mlx4_0', 1, '1: DOWN', '2: Polling');
    setPortState(fixture, 'mlx4_0', 2, '1: DOWN', '3: Disabled');
    await until('rdma/hca', (s) => s.unhealthy.includes('0000:3b:00.0'), 5_000);
    expect(sim.resource('rdma/hca')?.healthy.sort()).toEqual([
      '0000:5e:00.0',
      '0000:af:00.0',
      '0000:d8:00.0',
    ]);
    // phys_state alone (LinkUp again, state still DOWN) is no recovery; state ACTIVE on port 2 is.
    setPortState(fixture, 'mlx4_0', 2, '1: DOWN', '5: LinkUp');
    setPortState(fixture, 'mlx4_0', 2, '4: ACTIVE', '5: LinkUp');
    await until('rdma/hca', (s) => s.healthy.includes('0000:3b:00.0'), 5_000);
    const afterPorts = await scanCounts(url);
    expect((afterPorts['scans:probe'] ?? 0) - (before['scans:probe'] ?? 0)).toBeGreaterThanOrEqual(2);
    expect(afterPorts['scans:watch'] ?? 0).toBe(before['scans:watch'] ?? 0);
    expect(mlx4.filter((health, i) => health !== mlx4[i - 1])).toEqual(['Unhealthy', 'Healthy']);

    // The ConnectX-5 leaves sysfs (its driver unbound) while its /dev nodes stay behind: the class listing in the
    // probe drops it; linked back, it returns Healthy.
    rmSync(join(fixture.root, 'class/infiniband/mlx5_0'));
    await until('rdma/hca', (s) => !s.devices.some((d) => d.ID === '0000:d8:00.0'), 5_000);
    fixture.linkTo('class/infiniband/mlx5_0', `${fixture.pciDir('0000:d8:00.0')}/infiniband/mlx5_0`);
    await until('rdma/hca', (s) => s.healthy.includes('0000:d8:00.0'), 5_000);
    const afterSysfs = await scanCounts(url);
    expect(afterSysfs['scans:probe'] ?? 0).toBeGreaterThan(afterPorts['scans:probe'] ?? 0);
    expect(afterSysfs['scans:watch'] ?? 0).toBe(before['scans:watch'] ?? 0);

    // The uverbs node of the Omni-Path HFI vanishes and comes back: /dev/infiniband is watched.
    fixture.removeDevNode('/dev/infiniband/uverbs2');
    await until('rdma/hca', (s) => s.unhealthy.includes('0000:5e:00.0'), 5_000);
    fixture.addDevNode('/dev/infiniband/uverbs2', 231, 194);
    await until('rdma/hca', (s) => s.healthy.length === 4, 5_000);
    expect((await scanCounts(url))['scans:watch'] ?? 0).toBeGreaterThan(afterSysfs['scans:watch'] ?? 0);
    expect(mlx4.filter((health, i) => health !== mlx4[i - 1])).toEqual(['Unhealthy', 'Healthy']);

    running.child.kill('SIGTERM');
    expect(await running.exited).toEqual([0, null]);
  }, 90_000);

  it('shared: a k8s-rdma-shared-dev-plugin config works unchanged; IDs follow the HCA port health', async () => {
    const config = join(fixture.base, 'config.json');
    writeFileSync(config, UPSTREAM_CONFIG_JSON);
    const running = serve('--config', config);
    await until('rdma/hca_shared_devices_a', (s) => s.healthy.length === 1000);
    await until('rdma/hca_shared_devices_b', () => true);
    expect(sim.resource('rdma/hca_shared_devices_b')?.devices).toEqual([]);
    expect(sim.resource('rdma/hca_shared_devices_a')?.options.getPreferredAllocationAvailable).toBe(true);

    // What k8s-rdma-shared-dev-plugin returns for the same ConnectX-5: its char devices and rdma_cm, rwm.
    const first = await sim.admit({
      pod: 'p1',
      container: 'c',
      resource: 'rdma/hca_shared_devices_a',
      count: 1,
    });
    const second = await sim.admit({
      pod: 'p2',
      container: 'c',
      resource: 'rdma/hca_shared_devices_a',
      count: 2,
    });
    expect(first.response.devices).toEqual(RDMA(['uverbs1', 'umad2', 'issm2', 'rdma_cm'], 'rwm'));
    expect(second.deviceIds).toHaveLength(2);
    expect(second.deviceIds).not.toContain(first.deviceIds[0]);
    expect(second.response.devices).toEqual(first.response.devices);
    expect(first.response.envs).toEqual({});
    expect(first.response.mounts).toEqual([]);

    setPortState(fixture, 'mlx5_0', 1, '1: DOWN', '3: Disabled');
    await until('rdma/hca_shared_devices_a', (s) => s.unhealthy.length === 1000, 5_000);
    setPortState(fixture, 'mlx5_0', 1, '4: ACTIVE', '5: LinkUp');
    await until('rdma/hca_shared_devices_a', (s) => s.healthy.length === 1000, 5_000);

    running.child.kill('SIGTERM');
    expect(await running.exited).toEqual([0, null]);
  }, 90_000);

  it('a configuration reload swaps resources; a bad one keeps the running configuration', async () => {
    const config = join(fixture.base, 'config.yaml');
    writeFileSync(config, 'configList: [{ resourceName: shared_a, rdmaHcaMax: 3 }]\n');
    const running = serve('--config', config);
    await until('rdma/shared_a', (s) => s.healthy.length === 3);
    writeFileSync(config, 'configList: [{ resourceName: shared_a }]\n');
    await waitForLog(() => stderr().includes('configuration reload failed'));
    writeFileSync(
      config,
      'configList: [{ resourceName: ib, mode: exclusive, selectors: { linkTypes: [infiniband] } }]\n',
    );
    await until('rdma/ib', (s) => s.healthy.length === 2);
    expect(
      sim
        .resource('rdma/ib')
        ?.devices.map((d) => d.ID)
        .sort(),
    ).toEqual(['0000:3b:00.0', '0000:5e:00.0']);
    running.child.kill('SIGTERM');
    expect(await running.exited).toEqual([0, null]);
  }, 90_000);
});

describe('infiniband-device-plugin serve: CDI and plugin-watcher registration', () => {
  /** An exclusive resource (the two IB devices) and a shared one (the two RoCE functions, on node 1). */
  const CONFIG = [
    'configList:',
    '  - { resourceName: ib, mode: exclusive, selectors: { linkTypes: [infiniband] } }',
    '  - { resourceName: roce, rdmaHcaMax: 10, selectors: { linkTypes: [ether] } }',
    '',
  ].join('\n');
  const REQUESTS = [
    ['rdma/ib', 2, 2],
    ['rdma/roce', 2, 10],
  ] as const;
  let fixture: SysfsFixture;
  let config: string;
  beforeEach(() => {
    fixture = createRdmaMachine();
    config = join(fixture.base, 'rdma.yaml');
    writeFileSync(config, CONFIG);
  });
  afterEach(() => fixture.remove());

  type Admissions = Record<string, { ids: string[]; response: ContainerAllocateResponse }>;

  /**
   * Serves with `more` flags against a fresh kubelet-sim (watching `registryDir` when given), admits each request,
   * runs `inspect` while the plugin still serves, then stops it.
   */
  async function admitAll(
    name: string,
    more: readonly string[],
    options: { registryDir?: string; inspect?: (sim: KubeletSim, admissions: Admissions) => void } = {},
  ): Promise<Admissions> {
    const dir = join(fixture.base, name);
    mkdirSync(dir);
    const { registryDir } = options;
    const sim = await createKubeletSim({ dir, ...(registryDir ? { pluginsRegistryDir: registryDir } : {}) });
    const plugin = spawnServe(fixture, dir, ['--config', config, ...more]);
    try {
      const admissions: Admissions = {};
      for (const [resource, count, total] of REQUESTS) {
        await sim
          .until(resource, (state) => state.healthy.length === total, 30_000)
          .catch((error: unknown) => {
            throw new Error(`${String(error)}\n${plugin.stderr()}`);
          });
        const admission = await sim.admit({ pod: resource, container: 'c', resource, count });
        admissions[resource] = { ids: admission.deviceIds, response: admission.response };
      }
      options.inspect?.(sim, admissions);
      expect(await plugin.stop()).toEqual([0, null]);
      return admissions;
    } finally {
      await plugin.kill();
      await sim.close();
    }
  }

  it('--device-list-strategy cdi: Allocate names CDI devices that resolve to the nodes device-specs mode gives', async () => {
    const specs = await admitAll('dp-specs', []);
    const cdiDir = join(fixture.base, 'cdi');
    const resolved: Record<string, ReturnType<typeof resolveCdiDevices>> = {};
    const cdi = await admitAll('dp-cdi', ['--device-list-strategy', 'cdi', '--cdi-dir', cdiDir], {
      inspect: (_, admissions) => {
        for (const [resource] of REQUESTS) {
          const names = admissions[resource]?.response.cdiDevices.map((d) => d.name) ?? [];
          resolved[resource] = resolveCdiDevices(cdiDir, names);
        }
      },
    });
    const byPath = <T extends { containerPath: string }>(list: readonly T[]): T[] =>
      [...list].sort((a, b) => a.containerPath.localeCompare(b.containerPath));
    for (const [resource] of REQUESTS) {
      const bySpecs = specs[resource];
      const byCdi = cdi[resource];
      // The same devices were chosen (GetPreferredAllocation is deterministic), so the same nodes are due.
      expect(byCdi?.ids.sort()).toEqual(bySpecs?.ids.sort());
      expect(bySpecs?.response.cdiDevices).toEqual([]);
      expect({ devices: byCdi?.response.devices, mounts: byCdi?.response.mounts }).toEqual({
        devices: [],
        mounts: [],
      });
      expect(byPath(resolved[resource]?.devices ?? [])).toEqual(byPath(bySpecs?.response.devices ?? []));
      expect(resolved[resource]?.mounts).toEqual([]);
    }
    // Exclusive: one CDI device per HCA; shared: every ID is the one CDI device of all the resource's HCAs.
    expect(cdi['rdma/ib']?.response.cdiDevices.map((d) => d.name).sort()).toEqual([
      'k8s.device-plugin.rdma/ib=0000:3b:00.0',
      'k8s.device-plugin.rdma/ib=0000:5e:00.0',
    ]);
    expect(cdi['rdma/roce']?.response.cdiDevices.map((d) => d.name)).toEqual([
      'k8s.device-plugin.rdma/roce=hcas',
    ]);
    expect(resolved['rdma/roce']?.devices.map((d) => d.hostPath)).toEqual(
      expect.arrayContaining([
        '/dev/infiniband/uverbs1',
        '/dev/infiniband/uverbs3',
        '/dev/infiniband/rdma_cm',
      ]),
    );
    // Written while serving (one file per resource kind), removed at shutdown.
    expect(new Set(Object.values(resolved).flatMap((r) => r.files)).size).toBe(2);
    expect(readdirSync(cdiDir)).toEqual([]);
  }, 120_000);

  it('--registration plugin-watcher: registers through the plugins registry directory, not kubelet.sock', async () => {
    const registryDir = join(fixture.base, 'plugins_registry');
    mkdirSync(registryDir);
    const via: string[] = [];
    const admissions = await admitAll(
      'dp-watcher',
      ['--registration', 'plugin-watcher', '--plugins-registry-dir', registryDir],
      {
        registryDir,
        inspect: (sim) => {
          for (const [resource] of REQUESTS)
            via.push(
              sim.resource(resource)?.endpoint.startsWith(registryDir) ? 'registry' : 'device-plugin dir',
            );
        },
      },
    );
    expect(via).toEqual(['registry', 'registry']);
    expect(admissions['rdma/ib']?.ids.sort()).toEqual(['0000:3b:00.0', '0000:5e:00.0']);
    expect(admissions['rdma/roce']?.response.devices.length).toBeGreaterThan(0);
    // Sockets are removed at shutdown.
    expect(readdirSync(registryDir)).toEqual([]);
  }, 120_000);
});
