import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DiscoverDocument } from '@kdp/core/plugin';
import { runPluginCommand, startPluginRun, writeKubeletCheckpoint } from '@kdp/core/testing';
import { createKubeletSim } from '@kdp/kubelet-sim';
import { fpgaPlugin } from '../plugin';
import { createFpgaFixture, IF_ID, NLB0, NLB3, U200, type FpgaFixture } from '../testing/create-fpga-fixture';
import { intelFpgaCompat } from './intel-fpga';
import { xilinxFpgaCompat } from './xilinx-fpga';

// The anchors' published deployments, re-typed: intel/intel-device-plugins-for-kubernetes v0.36
// deployments/fpga_plugin/base/intel-fpga-plugin-daemonset.yaml (args `-mode=af`, env NODE_NAME from the downward
// API) and overlays/region/mode-region.yaml (args `-mode=region`); Xilinx's k8s-device-plugin publishes no
// DaemonSet args, its README documents the environment variables tried here. The fixture node: two DFL cards
// with Intel's example interface ID, NLB0 loaded on card 0 (NUMA 1) and NLB3 on card 1 (NUMA 0), and an Alveo U200.

/** Intel's name for an AFU: `af-<if[:3]>.<afu[:3]>.<base64url(interface id ‖ afu id)>`, computed here. */
const afName = (interfaceId: string, afuId: string): string =>
  `fpga.intel.com/af-${interfaceId.slice(0, 3)}.${afuId.slice(0, 3)}.${Buffer.from(interfaceId + afuId, 'hex').toString('base64url')}`;

/** Intel's device spec for a device node: the same path inside, rw. */
const node = (path: string) => ({ containerPath: path, hostPath: path, permissions: 'rw' });

const plugin = { ...fpgaPlugin, compat: [intelFpgaCompat, xilinxFpgaCompat] };
const env = { NODE_NAME: 'fpga-node-1' };

describe('drop-in for intel-fpga-plugin and Xilinx k8s-device-plugin (published deployments)', () => {
  let fx: FpgaFixture;
  const roots = (): string[] => ['--sysfs-root', fx.root, '--dev-root', fx.devRoot];
  const discover = async (args: readonly string[], withEnv: Record<string, string> = env) => {
    const result = await runPluginCommand(plugin, ['discover', '--output', 'json', ...roots(), ...args], {
      env: withEnv,
    });
    expect([result.code, result.code === 0 ? '' : result.stderr]).toEqual([0, '']);
    return JSON.parse(result.stdout) as DiscoverDocument & { config: { mode: string } };
  };

  beforeEach(() => {
    fx = createFpgaFixture();
    fx.addDflCard({ address: '0000:81:00.0', index: 0, numaNode: 1, interfaceId: IF_ID, afuId: NLB0 });
    fx.addDflCard({ address: '0000:05:00.0', index: 1, numaNode: 0, interfaceId: IF_ID, afuId: NLB3 });
    fx.addAlveoCard(U200);
  });
  afterEach(() => fx.remove());

  it("base DaemonSet (-mode=af): Intel's af- names, port IDs and port nodes", async () => {
    const doc = await discover(['-mode=af']);
    expect(doc.config.mode).toBe('af');
    const intel = doc.resources.filter((r) => r.resourceName.startsWith('fpga.intel.com/'));
    expect(intel.map((r) => [r.resourceName, r.devices.map((d) => d.id)])).toEqual(
      [
        [afName(IF_ID, NLB0), ['dfl-port.0']],
        [afName(IF_ID, NLB3), ['dfl-port.1']],
      ].sort(([a], [b]) => ((a as string) < (b as string) ? -1 : 1)),
    );
    expect(intel.map((r) => r.devices[0]?.deviceSpecs)).toEqual(
      intel.map((r) => [node(`/dev/${r.devices[0]?.id ?? ''}`)]),
    );
    // The name Intel's README gives for NLB0 on this interface.
    expect(intel.map((r) => r.resourceName)).toContain(
      'fpga.intel.com/af-695.d84.aVKNtusxV3qMNmj5-qCB9thCTcSko8QT-J5DNoP5BAs',
    );
  });

  it('region overlay (-mode=region): fpga.intel.com/region-<interface id>, a device per region with its ports', async () => {
    const doc = await discover(['-mode=region']);
    const [region] = doc.resources.filter((r) => r.resourceName.startsWith('fpga.intel.com/'));
    expect(region?.resourceName).toBe(`fpga.intel.com/region-${IF_ID}`);
    // Intel names a region after its FME (dfl-fme.0): started as it, so do we (our own scheme: region0).
    expect(region?.devices.map((d) => [d.id, d.deviceSpecs])).toEqual([
      ['dfl-fme.0', [node('/dev/dfl-port.0')]],
      ['dfl-fme.1', [node('/dev/dfl-port.1')]],
    ]);
    // Intel's Allocate sets no variables (its annotation: see the served overlay below).
    expect(region?.devices.map((d) => d.envs)).toEqual([{}, {}]);
    const file = join(fx.base, 'ours.yaml');
    writeFileSync(file, 'mode: region\n');
    const ours = await discover(['--config', file]);
    const ourRegion = ours.resources.find((r) => r.resourceName.startsWith('fpga.intel.com/'));
    expect(ourRegion?.devices.map((d) => [d.id, Object.keys(d.envs).length > 0])).toEqual([
      ['region0', true],
      ['region1', true],
    ]);
    const devel = await discover(['-mode', 'regiondevel']);
    expect(devel.resources[1]?.devices[0]?.deviceSpecs).toEqual([
      node('/dev/dfl-port.0'),
      node('/dev/dfl-fme.0'),
    ]);
  });

  it('refuses what would change the outcome: a bad mode, the API server flags, Xilinx virtual devices', async () => {
    const cases: Array<[readonly string[], Record<string, string>, string]> = [
      [['-mode=afu'], env, '-mode: "afu" is not one of af, region, regiondevel'],
      [
        ['-kubeconfig=/etc/kube.conf'],
        env,
        '-kubeconfig: "/etc/kube.conf" is not supported: kdp does not read',
      ],
      [['-master', 'https://10.0.0.1'], env, '-master: "https://10.0.0.1" is not supported'],
      [
        [],
        { VirtualDev: 'true', VirtualNum: '4' },
        'environment variable VirtualDev: "true" is not supported',
      ],
      [[], { U30NameConvention: 'CommonName' }, 'there is no amd.com/ama_u30'],
      [[], { DeviceNameCustomize: 'TRUE' }, 'NameCustomize.json is not read'],
    ];
    for (const [args, withEnv, message] of cases) {
      const result = await runPluginCommand(plugin, ['discover', ...roots(), ...args], { env: withEnv });
      expect([args, result.code, result.stderr]).toEqual([args, 2, expect.stringContaining(message)]);
    }
  });

  it("Xilinx's defaults and -log-level: amd.com/<shell>-<timestamp>, the user PF address as ID, its render node", async () => {
    const doc = await discover(['-log-level', 'debug'], {
      VirtualDev: 'False',
      VirtualNum: '1',
      U30NameConvention: 'ExactName',
      U30AllocUnit: 'Device',
    });
    const [alveo] = doc.resources.filter((r) => r.resourceName.startsWith('amd.com/'));
    expect(alveo?.resourceName).toBe('amd.com/xilinx_u200_xdma_201830_1-1542252769');
    expect(alveo?.devices.map((d) => [d.id, d.deviceSpecs])).toEqual([
      [
        '0000:3b:00.1',
        [{ containerPath: '/dev/dri/renderD128', hostPath: '/dev/dri/renderD128', permissions: 'rwm' }],
      ],
    ]);
  });

  it("region overlay on a node whose kubelet checkpoint has Intel's IDs: the running pods' regions stay advertised", async () => {
    const dir = join(fx.base, 'device-plugins');
    mkdirSync(dir);
    const resource = `fpga.intel.com/region-${IF_ID}`;
    // The kubelet's checkpoint where intel-fpga-plugin (-mode=region) ran, a pod holding region 1.
    writeKubeletCheckpoint(
      dir,
      [{ pod: 'default/fpga-1', resource, deviceIds: ['dfl-fme.1'], numaNode: 0 }],
      { [resource]: ['dfl-fme.0', 'dfl-fme.1'] },
    );
    const sim = await createKubeletSim({ dir });
    const run = startPluginRun(plugin, [...roots(), '--device-plugin-dir', dir, '-mode=region'], { env });
    try {
      await sim.until(resource, (state) =>
        ['dfl-fme.0', 'dfl-fme.1'].every((id) => state.healthy.includes(id)),
      );
      // A new pod's region is answered as Intel: its port node, the annotation its CRI hook acts on, no variables.
      const admission = await sim.admit({ pod: 'fpga-0', container: 'c', resource, count: 1 });
      const [id] = admission.deviceIds;
      expect(admission.response.devices).toEqual([node(`/dev/${(id ?? '').replace('fme', 'port')}`)]);
      expect([admission.response.annotations, admission.response.envs]).toEqual([
        { 'com.intel.fpga.mode': 'fpga.intel.com/region' },
        {},
      ]);
    } finally {
      expect(await run.stop()).toBe(0);
      await sim.close();
    }
  });

  it('serves the base DaemonSet: the kubelet gets the af- resources, Allocate hands over the port node', async () => {
    const dir = join(fx.base, 'device-plugins');
    mkdirSync(dir);
    const sim = await createKubeletSim({ dir });
    const run = startPluginRun(plugin, [...roots(), '--device-plugin-dir', dir, '-mode=af'], { env });
    try {
      const resource = afName(IF_ID, NLB0);
      await sim.until(resource, (state) => state.healthy.length === 1);
      const admission = await sim.admit({ pod: 'p', container: 'c', resource, count: 1 });
      expect([admission.deviceIds, admission.response.devices]).toEqual([
        ['dfl-port.0'],
        [node('/dev/dfl-port.0')],
      ]);
      // No KDP_FPGA_* variables and no annotation in af mode, as Intel.
      expect([admission.response.envs, admission.response.annotations]).toEqual([{}, {}]);
    } finally {
      expect(await run.stop()).toBe(0);
      await sim.close();
    }
  });
});
