import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveCdiDevices } from '@kdp/core/testing';
import { createKubeletSim, type Admission, type KubeletSim } from '@kdp/kubelet-sim';
import {
  bundleEntry,
  metricsUrlOf,
  scanCounts,
  spawnPlugin,
  type EntryBundle,
  type PluginProcess,
} from '@kdp/kubelet-sim/testing';
import { createFpgaFixture, IF_ID, NLB0, NLB3, U200, type FpgaFixture } from './testing/create-fpga-fixture';
import {
  programmingConfig,
  setFakeMode,
  writeFakeProgrammer,
  type FakeProgrammer,
} from './testing/fake-programmer';

const REGION = `fpga.intel.com/region-${IF_ID}`;
const AMD = 'amd.com/xilinx_u200_xdma_201830_1-1542252769';
const afName = (afuId: string): string =>
  `fpga.intel.com/af-${IF_ID.slice(0, 3)}.${afuId.slice(0, 3)}.${Buffer.from(IF_ID + afuId, 'hex').toString('base64url')}`;

let bundle: EntryBundle;
beforeAll(() => {
  bundle = bundleEntry(join(__dirname, 'main.ts'));
}, 60_000);
afterAll(() => bundle.remove());

/** `fpga-device-plugin serve` on the fixture with a config file, registering in `dir`, at the default poll interval. */
const spawnServe = (fx: FpgaFixture, dir: string, config: string, more: string[] = []): PluginProcess =>
  spawnPlugin(bundle.path, [
    'serve',
    ...['--sysfs-root', fx.root, '--dev-root', fx.devRoot, '--device-plugin-dir', dir],
    ...['--config', config, ...more],
  ]);

describe('fpga-device-plugin serve against kubelet-sim (region mode, programming)', () => {
  let fx: FpgaFixture;
  let fake: FakeProgrammer;
  let sim: KubeletSim;
  let plugin: PluginProcess;
  let afuFile: string;
  let config: string;

  beforeAll(async () => {
    fx = createFpgaFixture();
    const { portDir } = fx.addDflCard({
      address: '0000:81:00.0',
      index: 0,
      numaNode: 1,
      interfaceId: IF_ID,
      afuId: NLB0,
    });
    fx.addAlveoCard(U200);
    afuFile = join(fx.root, portDir, 'afu_id');
    fake = writeFakeProgrammer(fx, NLB3);
    config = join(fx.base, 'fpga.yaml');
    writeFileSync(config, programmingConfig(fake, afuFile, NLB3, ['amd: { includeManagement: true }']));
    const dir = join(fx.base, 'dp');
    mkdirSync(dir);
    sim = await createKubeletSim({ dir });
    const registered = Promise.all(
      [REGION, AMD].map((r) => sim.waitFor('devices', (e) => e.resource === r, 30_000)),
    );
    plugin = spawnServe(fx, dir, config, ['--metrics-address', '127.0.0.1:0']);
    await registered;
  }, 60_000);

  afterAll(async () => {
    const [code] = (await plugin?.stop()) ?? [];
    await sim?.close();
    fx?.remove();
    expect(code).toBe(0);
  }, 30_000);

  it('registers the region resource with PreStartContainer and the AMD resource without it', () => {
    expect(sim.resource(REGION)).toMatchObject({
      options: { preStartRequired: true, getPreferredAllocationAvailable: true },
      healthy: ['region0'],
    });
    expect(sim.resource(AMD)).toMatchObject({
      options: { preStartRequired: false },
      healthy: ['0000:3b:00.1'],
    });
    expect(sim.resource(REGION)?.devices[0]?.topology).toEqual({ nodes: [{ ID: 1 }] });
  });

  it('a pod admission runs the fake programmer once, and not again when the AFU is already loaded', async () => {
    const first = await sim.admit({ pod: 'p1', container: 'c', resource: REGION, count: 1 });
    expect(fake.runs()).toEqual([`${afuFile} ${fake.bitstream}`]);
    // Intel's plugin gives the port node (rw) in region mode; we add envs naming it.
    expect(first.response.devices).toEqual([
      { containerPath: '/dev/dfl-port.0', hostPath: '/dev/dfl-port.0', permissions: 'rw' },
    ]);
    expect(first.response.envs).toEqual({
      KDP_FPGA_DEVICE_IDS: 'region0',
      KDP_FPGA_PORTS: '/dev/dfl-port.0',
      KDP_FPGA_INTERFACE_ID: IF_ID,
      KDP_FPGA_AFU_ID: NLB3,
    });
    sim.release('p1');
    await sim.admit({ pod: 'p2', container: 'c', resource: REGION, count: 1 });
    await sim.startContainer('p2', 'c');
    expect(fake.runs()).toHaveLength(1);
    sim.release('p2');
  }, 60_000);

  it('a failing programmer fails the container start with its exit code and output', async () => {
    writeFileSync(afuFile, `${NLB0}\n`);
    setFakeMode(fx, 'fail');
    await expect(sim.admit({ pod: 'p3', container: 'c', resource: REGION, count: 1 })).rejects.toThrow(
      /PreStartContainer rpc failed with err: .*exited with code 3; output: fpgaconf: bitstream is not compatible/,
    );
    sim.release('p3');
    setFakeMode(fx, 'ok');
  }, 60_000);

  it('AMD Allocate matches Xilinx’s device specs (xclmgmt and render node, rwm)', async () => {
    const admission = await sim.admit({ pod: 'p4', container: 'c', resource: AMD, count: 1 });
    expect(admission.response.devices).toEqual([
      { containerPath: '/dev/xclmgmt15104', hostPath: '/dev/xclmgmt15104', permissions: 'rwm' },
      { containerPath: '/dev/dri/renderD128', hostPath: '/dev/dri/renderD128', permissions: 'rwm' },
    ]);
    expect(admission.response.envs).toMatchObject({
      KDP_FPGA_RENDER_NODES: '/dev/dri/renderD128',
      KDP_FPGA_MGMT_NODES: '/dev/xclmgmt15104',
    });
    sim.release('p4');
  }, 30_000);

  it('a port error reaches the kubelet through the change probe, in order, and clearing it recovers', async () => {
    const errors = join(afuFile, '..', 'errors', 'errors');
    const url = await metricsUrlOf(plugin);
    const health: string[] = [];
    const onDevices = (e: { resource: string; unhealthy: string[] }): void => {
      if (e.resource !== REGION) return;
      const state = e.unhealthy.includes('region0') ? 'Unhealthy' : 'Healthy';
      if (health[health.length - 1] !== state) health.push(state);
    };
    const before = await scanCounts(url, 'fpga');
    sim.events.on('devices', onDevices);
    try {
      // errors/errors sits four levels below the PCI function: no watched directory lists it, so only the
      // probe (500 ms) can see it. A probe missing it, or a full scan on every tick, fails below (the scan
      // counts); the bound is generous so that a loaded machine's slow ticks are not taken for a missed change.
      const bound = 20_000;
      const sick = sim.waitFor(
        'devices',
        (e) => e.resource === REGION && e.unhealthy.includes('region0'),
        bound,
      );
      writeFileSync(errors, '0x1\n');
      await sick;
      const healthy = sim.waitFor(
        'devices',
        (e) => e.resource === REGION && e.healthy.includes('region0'),
        bound,
      );
      writeFileSync(errors, '0x0\n');
      await healthy;
      expect(health).toEqual(['Unhealthy', 'Healthy']);
      // Then idle ticks only probe: wait (scraping, 20 s at most) for two probes that found nothing changed.
      let after = await scanCounts(url, 'fpga');
      const idleBy = Date.now() + 20_000;
      while ((after['probes:unchanged'] ?? 0) - (before['probes:unchanged'] ?? 0) < 2) {
        if (Date.now() > idleBy) throw new Error(`no unchanged probes: ${JSON.stringify(after)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
        after = await scanCounts(url, 'fpga');
      }
      // Two changes, two probe-started scans (four if a probe read a file half written); never an interval scan.
      const probeScans = (after['scans:probe'] ?? 0) - (before['scans:probe'] ?? 0);
      expect(probeScans).toBeGreaterThanOrEqual(2);
      expect(probeScans).toBeLessThanOrEqual(4);
      expect(after['scans:interval'] ?? 0).toBe(0);
    } finally {
      sim.events.off('devices', onDevices);
    }
  }, 60_000);

  /** Resolves once the region is registered with (or without) PreStartContainer and advertises region0. */
  const regionServed = async (preStart: boolean): Promise<void> => {
    const served = (): boolean => {
      const state = sim.resource(REGION);
      return (
        state?.registered === true &&
        (state.options.preStartRequired === true) === preStart &&
        state.healthy.includes('region0')
      );
    };
    while (!served()) await sim.waitFor('devices', (e) => e.resource === REGION, 30_000);
  };

  it('removing the programming rule re-registers the region without PreStartContainer, adding it back with it', async () => {
    writeFileSync(
      config,
      `mode: region\nbitstreamDir: ${fake.bitstreamDir}\namd: { includeManagement: true }\n`,
    );
    await regionServed(false);
    const runs = fake.runs().length;
    writeFileSync(afuFile, `${NLB0}\n`);
    await sim.admit({ pod: 'p5', container: 'c', resource: REGION, count: 1 });
    expect(fake.runs()).toHaveLength(runs);
    sim.release('p5');

    writeFileSync(config, programmingConfig(fake, afuFile, NLB3, ['amd: { includeManagement: true }']));
    await regionServed(true);
    await sim.admit({ pod: 'p6', container: 'c', resource: REGION, count: 1 });
    expect(fake.runs()).toHaveLength(runs + 1);
    sim.release('p6');
  }, 90_000);
});

describe('fpga-device-plugin serve against kubelet-sim (af mode)', () => {
  // The old resource set kept a resource whose devices all vanished registered with zero devices; the runtime
  // removes it (socket unlinked). For af mode that is the right answer: the name encodes the AFU that was
  // loaded, and after reprogramming no hardware carries it any more. The kubelet marks a removed resource's
  // devices unhealthy at once and drops it from the node after its own grace period.
  it('reprogramming a port moves it to the new AFU’s resource and removes the old one', async () => {
    const fx = createFpgaFixture();
    const { portDir } = fx.addDflCard({ address: '0000:81:00.0', index: 0, interfaceId: IF_ID, afuId: NLB0 });
    fx.addDflCard({ address: '0000:82:00.0', index: 1, interfaceId: IF_ID, afuId: NLB3 });
    const config = join(fx.base, 'fpga.yaml');
    writeFileSync(config, 'mode: af\n');
    const dir = join(fx.base, 'dp');
    mkdirSync(dir);
    const sim = await createKubeletSim({ dir });
    const registered = Promise.all(
      [afName(NLB0), afName(NLB3)].map((r) => sim.waitFor('devices', (e) => e.resource === r, 30_000)),
    );
    const plugin = spawnServe(fx, dir, config);
    try {
      await registered;
      expect(sim.resource(afName(NLB0))?.healthy).toEqual(['dfl-port.0']);
      const oldSocket = join(dir, sim.resource(afName(NLB0))?.endpoint ?? 'none');
      expect(existsSync(oldSocket)).toBe(true);

      const moved = sim.waitFor(
        'devices',
        (e) => e.resource === afName(NLB3) && e.healthy.length === 2,
        30_000,
      );
      const ended = sim.waitFor('stream-ended', (e) => e.resource === afName(NLB0), 30_000);
      writeFileSync(join(fx.root, portDir, 'afu_id'), `${NLB3}\n`);
      await Promise.all([moved, ended]);
      expect(sim.resource(afName(NLB3))?.healthy).toEqual(['dfl-port.0', 'dfl-port.1']);
      expect(sim.resource(afName(NLB0))?.registered).toBe(false);
      expect(existsSync(oldSocket)).toBe(false);
      expect(await plugin.stop()).toEqual([0, null]);
    } finally {
      await plugin.kill();
      await sim.close();
      fx.remove();
    }
  }, 90_000);
});

describe('fpga-device-plugin serve: CDI and plugin-watcher registration', () => {
  const DFL_REGION = `fpga.intel.com/region-${IF_ID}`;
  /** Each resource and how many devices it has. */
  const RESOURCES = [
    [DFL_REGION, 2],
    [AMD, 1],
  ] as const;
  let fx: FpgaFixture;
  let config: string;
  beforeAll(() => {
    fx = createFpgaFixture();
    // Two regions on one interface ID (one resource, two devices), each with a port and an FME node (rw), and
    // an Alveo card handing out its render and management nodes (rwm).
    fx.addDflCard({ address: '0000:81:00.0', index: 0, numaNode: 1, interfaceId: IF_ID, afuId: NLB0 });
    fx.addDflCard({ address: '0000:82:00.0', index: 1, numaNode: 0, interfaceId: IF_ID, afuId: NLB0 });
    fx.addAlveoCard(U200);
    config = join(fx.base, 'fpga.yaml');
    writeFileSync(config, 'mode: regiondevel\namd: { includeManagement: true }\n');
  });
  afterAll(() => fx?.remove());

  /**
   * Serves with `more` flags against a fresh kubelet-sim (in plugin-watcher mode with `registryDir`), admits every
   * device of each resource, runs `inspect` while the plugin still serves, then stops it.
   */
  async function admitAll(
    name: string,
    more: string[],
    options: {
      registryDir?: string;
      inspect?: (sim: KubeletSim, admissions: Record<string, Admission>) => void;
    } = {},
  ): Promise<Record<string, Admission>> {
    const dir = join(fx.base, name);
    mkdirSync(dir);
    const { registryDir } = options;
    const sim = await createKubeletSim({ dir, ...(registryDir ? { pluginsRegistryDir: registryDir } : {}) });
    const plugin = spawnServe(fx, dir, config, more);
    try {
      const admissions: Record<string, Admission> = {};
      for (const [resource, count] of RESOURCES) {
        await sim.until(resource, (state) => state.healthy.length === count, 30_000);
        admissions[resource] = await sim.admit({ pod: `p${count}`, container: 'c', resource, count });
      }
      options.inspect?.(sim, admissions);
      expect(await plugin.stop()).toEqual([0, null]);
      return admissions;
    } finally {
      await plugin.kill();
      await sim.close();
    }
  }

  it('--device-list-strategy cdi: Allocate names CDI devices that resolve to the device-specs nodes', async () => {
    const specs = await admitAll('dp-specs', []);
    const cdiDir = join(fx.base, 'cdi');
    mkdirSync(cdiDir);
    const resolved: Record<string, ReturnType<typeof resolveCdiDevices>> = {};
    const cdi = await admitAll('dp-cdi', ['--device-list-strategy', 'cdi', '--cdi-dir', cdiDir], {
      inspect: (_, admissions) => {
        for (const [resource] of RESOURCES) {
          const names = admissions[resource]?.response.cdiDevices.map((d) => d.name) ?? [];
          resolved[resource] = resolveCdiDevices(cdiDir, names);
        }
      },
    });
    const byPath = <T extends { containerPath: string }>(list: readonly T[]): T[] =>
      [...list].sort((a, b) => a.containerPath.localeCompare(b.containerPath));
    for (const [resource, count] of RESOURCES) {
      const bySpecs = specs[resource]?.response;
      const byCdi = cdi[resource]?.response;
      expect(bySpecs?.cdiDevices).toEqual([]);
      expect(bySpecs?.devices).toHaveLength(resource === AMD ? 2 : 4);
      // cdi alone: no device specs, one CDI name per device, the same env.
      expect({ devices: byCdi?.devices, mounts: byCdi?.mounts, names: byCdi?.cdiDevices.length }).toEqual({
        devices: [],
        mounts: [],
        names: count,
      });
      expect(byCdi?.envs).toEqual(bySpecs?.envs);
      expect(byPath(resolved[resource]?.devices ?? [])).toEqual(byPath(bySpecs?.devices ?? []));
      expect(resolved[resource]?.mounts).toEqual(bySpecs?.mounts);
    }
    // Written while serving (one file per resource kind), removed at shutdown.
    expect(new Set(Object.values(resolved).flatMap((r) => r.files)).size).toBe(2);
    expect(readdirSync(cdiDir)).toEqual([]);
  }, 120_000);

  it('--registration plugin-watcher: registers through the plugins registry directory, not kubelet.sock', async () => {
    const registryDir = join(fx.base, 'plugins_registry');
    mkdirSync(registryDir);
    const via: string[] = [];
    const admissions = await admitAll(
      'dp-watcher',
      ['--registration', 'plugin-watcher', '--plugins-registry-dir', registryDir],
      {
        registryDir,
        inspect: (sim) => {
          for (const [resource] of RESOURCES)
            via.push(sim.resource(resource)?.endpoint.startsWith(registryDir) ? 'registry' : 'dir');
        },
      },
    );
    expect(via).toEqual(['registry', 'registry']);
    expect(admissions[AMD]?.deviceIds).toEqual(['0000:3b:00.1']);
    expect(admissions[DFL_REGION]?.deviceIds.sort()).toEqual(['region0', 'region1']);
    // Sockets are removed at shutdown.
    expect(readdirSync(registryDir)).toEqual([]);
  }, 120_000);
});
