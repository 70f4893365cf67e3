import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DiscoverDocument } from '@kdp/core/plugin';
import { runPluginCommand, startPluginRun } from '@kdp/core/testing';
import { createKubeletSim } from '@kdp/kubelet-sim';
import type { SysfsFixture } from '@kdp/topology/testing';
import { createGpuPlugin } from '../plugin';
import { addDrmNodes } from '../testing/driver-files';
import { rootFlags } from '../testing/fixture-devices';
import { bindDriver } from '../testing/hot-plug';
import { buildIntelMachine, INTEL_GPUS } from '../testing/machines';
import { intelGpuCompat } from './intel-gpu';

// intel/intel-device-plugins-for-kubernetes v0.36's published deployments, re-typed: the base DaemonSet
// (deployments/gpu_plugin/base/intel-gpu-plugin.yaml: no args, env NODE_NAME and HOST_IP) and the args of its
// overlays (monitoring_shared-dev_nfd, nfd_labeled_nodes, allowlist-arc, health, xpumd, wsl). Each runs against
// our binary on the Intel fixture node: an integrated GPU (i915, card0, no NUMA), a Flex 170 (i915, card1, NUMA 0,
// with /dev/dri/by-path links), an Arc B580 (xe, card2, NUMA 1) and here a second Flex 170 (i915, card3, NUMA 1).

const BASE_ENV = { NODE_NAME: 'node-1', HOST_IP: '10.0.0.1' };
const SECOND_FLEX = '0000:84:00.0';

/** What Intel's plugin answers for a GPU: its card and render nodes (rw) and its by-path links (read-only). */
const intelAllocation = (card: number, render: number, address?: string) => ({
  devices: [`/dev/dri/card${card}`, `/dev/dri/renderD${render}`].map((path) => ({
    containerPath: path,
    hostPath: path,
    permissions: 'rw',
  })),
  mounts:
    address === undefined
      ? []
      : ['card', 'render'].map((kind) => {
          const path = `/dev/dri/by-path/pci-${address}-${kind}`;
          return { containerPath: path, hostPath: path, readOnly: true };
        }),
});

describe('drop-in for intel-gpu-plugin (published deployments)', () => {
  const plugin = { ...createGpuPlugin(), compat: [intelGpuCompat] };
  let fixture: SysfsFixture;
  const discover = async (args: readonly string[]) => {
    const result = await runPluginCommand(
      plugin,
      ['discover', '--output', 'json', ...rootFlags(fixture), ...args],
      { env: BASE_ENV },
    );
    expect([result.code, result.code === 0 ? '' : result.stderr]).toEqual([0, '']);
    return JSON.parse(result.stdout) as DiscoverDocument & { config: { sharing: unknown } };
  };

  beforeEach(() => {
    fixture = buildIntelMachine();
    bindDriver(fixture, SECOND_FLEX, 'i915');
    addDrmNodes(fixture, SECOND_FLEX, 3, 131);
  });
  afterEach(() => fixture.remove());

  it("the base DaemonSet (no args): Intel's resource names, one device per GPU, Intel's device nodes and mounts", async () => {
    const doc = await discover([]);
    expect(doc.resources.map((r) => [r.resourceName, r.devices.map((d) => d.id)])).toEqual([
      ['gpu.intel.com/i915', [INTEL_GPUS.igpu, INTEL_GPUS.flex, SECOND_FLEX]],
      ['gpu.intel.com/xe', [INTEL_GPUS.battlemage]],
    ]);
    const [i915, xe] = doc.resources;
    const flex = i915?.devices[1];
    expect([flex?.deviceSpecs, flex?.mounts, flex?.envs]).toEqual([
      intelAllocation(1, 129, INTEL_GPUS.flex).devices,
      intelAllocation(1, 129, INTEL_GPUS.flex).mounts,
      {},
    ]);
    expect(xe?.devices[0]?.deviceSpecs).toEqual(intelAllocation(2, 130).devices);
  });

  it('-shared-dev-num=30 -v=2 (monitoring_shared-dev_nfd without monitoring): 30 devices per GPU, i915 and xe', async () => {
    const doc = await discover(['-shared-dev-num=30', '-v=2']);
    expect(doc.resources.map((r) => [r.resourceName, r.devices.length])).toEqual([
      ['gpu.intel.com/i915', 90],
      ['gpu.intel.com/xe', 30],
    ]);
    const xe = doc.resources[1]?.devices ?? [];
    // One ID per share, `<PCI address>::<n>` (Intel: `card2-<n>`), every share the whole GPU's nodes.
    expect(xe.map((d) => d.id)).toEqual(
      Array.from({ length: 30 }, (_, n) => `${INTEL_GPUS.battlemage}::${n}`),
    );
    expect(new Set(xe.map((d) => JSON.stringify(d.deviceSpecs)))).toEqual(
      new Set([JSON.stringify(intelAllocation(2, 130).devices)]),
    );
    expect(doc.config.sharing).toMatchObject({
      resources: [
        { name: 'gpu.intel.com/i915', replicas: 30 },
        { name: 'gpu.intel.com/xe', replicas: 30 },
      ],
    });
  });

  // cmd/gpu_plugin/gpu_plugin.go scan(): with -enable-monitoring every GPU's card and render nodes plus its MEI
  // nodes (<card>/device/*.mei-*/mei/*) go into one device "all" of gpu.intel.com/monitoring (-monitoring-mode
  // single, the default) or of gpu.intel.com/<driver>_monitoring (split), Healthy, no mounts, never shared.
  it.each([
    ['nfd_labeled_nodes', ['-enable-monitoring', '-v=2'], 1],
    ['monitoring_shared-dev_nfd', ['-shared-dev-num=30', '-enable-monitoring', '-v=2'], 30],
  ] as const)(
    'the %s overlay serves gpu.intel.com/monitoring: one device, all, with every GPU and MEI node',
    async (_overlay, args, shares) => {
      fixture.write(`${fixture.pciDir(INTEL_GPUS.battlemage)}/xe.mei-gscfi.768/mei/mei0/dev`, '237:0\n');
      fixture.addDevNode('/dev/mei0', 237, 0);
      const doc = await discover(args);
      expect(doc.resources.map((r) => [r.resourceName, r.devices.length])).toEqual([
        ['gpu.intel.com/i915', 3 * shares],
        ['gpu.intel.com/monitoring', 1],
        ['gpu.intel.com/xe', shares],
      ]);
      const monitoring = doc.resources[1]?.devices[0];
      expect([monitoring?.id, monitoring?.health, monitoring?.mounts]).toEqual(['all', 'Healthy', []]);
      expect(monitoring?.deviceSpecs.map((spec) => [spec.hostPath, spec.permissions])).toEqual(
        [
          '/dev/dri/card0',
          '/dev/dri/renderD128',
          '/dev/dri/card1',
          '/dev/dri/renderD129',
          '/dev/dri/card2',
          '/dev/dri/renderD130',
          '/dev/mei0',
          '/dev/dri/card3',
          '/dev/dri/renderD131',
        ].map((path) => [path, 'rw']),
      );
      const split = await discover([...args, '-monitoring-mode=split']);
      expect(split.resources.map((r) => [r.resourceName, r.devices.map((d) => d.id)])).toEqual([
        ['gpu.intel.com/i915', expect.any(Array)],
        ['gpu.intel.com/i915_monitoring', ['all']],
        ['gpu.intel.com/xe', expect.any(Array)],
        ['gpu.intel.com/xe_monitoring', ['all']],
      ]);
      expect(split.resources[3]?.devices[0]?.deviceSpecs.map((spec) => spec.hostPath)).toEqual([
        '/dev/dri/card2',
        '/dev/dri/renderD130',
        '/dev/mei0',
      ]);
    },
  );

  it.each([
    ['allowlist-arc', ['-v=4', '-allow-ids=0x56a6,0x56a5,0x56a1,0x56a0,0x5694'], '-allow-ids'],
    ['health', ['-health-management'], '-health-management'],
    ['xpumd', ['-xpumd-endpoint=/run/xpumd/intelxpuinfo.sock', '-enable-monitoring'], '-xpumd-endpoint'],
    ['wsl', ['-wsl'], '-wsl'],
  ])(
    'the %s overlay exits 2, naming the refused flag and what kdp does instead',
    async (_overlay, args, refused) => {
      const result = await runPluginCommand(plugin, [...rootFlags(fixture), ...args], { env: BASE_ENV });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        new RegExp(`^gpu-device-plugin: ${refused}: .* is not supported: kdp (has|does|advertises)`),
      );
    },
  );

  it('serves -shared-dev-num=2 -allocation-policy=balanced: shares spread over GPUs, Allocate as Intel', async () => {
    const dir = join(fixture.base, 'device-plugins');
    mkdirSync(dir);
    const sim = await createKubeletSim({ dir });
    const run = startPluginRun(
      plugin,
      [...rootFlags(fixture), '--device-plugin-dir', dir, '-shared-dev-num=2', '-allocation-policy=balanced'],
      { env: BASE_ENV },
    );
    try {
      const resource = 'gpu.intel.com/i915';
      await sim.until(resource, (state) => state.healthy.length === 6);
      const first = await sim.admit({ pod: 'p1', container: 'c', resource, count: 1 });
      const second = await sim.admit({ pod: 'p2', container: 'c', resource, count: 1 });
      const gpuOf = (ids: readonly string[]) => ids.map((id) => id.split('::')[0]);
      // Two single-share pods on two GPUs, as Intel's balanced (and none) policy places them.
      expect(gpuOf(first.deviceIds)).not.toEqual(gpuOf(second.deviceIds));
      const expected: Record<string, ReturnType<typeof intelAllocation>> = {
        [INTEL_GPUS.igpu]: intelAllocation(0, 128),
        [INTEL_GPUS.flex]: intelAllocation(1, 129, INTEL_GPUS.flex),
        [SECOND_FLEX]: intelAllocation(3, 131),
      };
      for (const admission of [first, second]) {
        const gpu = gpuOf(admission.deviceIds)[0] ?? '';
        expect({ devices: admission.response.devices, mounts: admission.response.mounts }).toEqual(
          expected[gpu],
        );
        expect(admission.response.envs).toEqual({});
      }
    } finally {
      expect(await run.stop()).toBe(0);
      await sim.close();
    }
  });
});
