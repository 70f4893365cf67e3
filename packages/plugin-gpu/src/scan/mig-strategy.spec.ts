import type { Logger, PluginDevice } from '@kdp/core';
import type { SysfsFixture } from '@kdp/topology/testing';
import { migProfileName } from '../nvml/mig-profile';
import type { NvmlMigGpu, NvmlMigLoad } from '../nvml/nvml-mig';
import { planResources } from '../resources/plan-resources';
import { fixtureHost, gpuConfig } from '../testing/fixture-devices';
import type { FakeNvmlGpu } from '../testing/fake-nvml';
import {
  buildMigMachine,
  h100Mig,
  MIG_MACHINE,
  migMachineNvml,
  migMachineUuid,
  removeMigInstance,
} from '../testing/mig-machine';
import type { GpuScan } from './gpu';
import { createMigStrategy, retiredMigDevices, type MigStrategy } from './mig-strategy';
import { scanGpus } from './scan-gpus';

const silent = { info: () => undefined, warn: () => undefined } as unknown as Logger;

/** An in-memory NVML answering from a fake layout (the gcc-built library is tested in nvml-mig.spec.ts). */
function memoryNvml(gpus: () => readonly FakeNvmlGpu[], calls: string[] = []): () => NvmlMigLoad {
  const read = (uuid: string): NvmlMigGpu => {
    calls.push(uuid);
    const gpu = gpus().find((g) => g.uuid === uuid);
    if (gpu === undefined) throw new Error('nvmlDeviceGetHandleByUUID returned 6');
    const devices = (gpu.migs ?? []).flatMap((m, index) =>
      m === undefined
        ? []
        : [
            {
              index,
              uuid: m.uuid,
              gpuInstanceId: m.gpuInstanceId,
              computeInstanceId: m.computeInstanceId,
              profile: migProfileName({
                gpuInstanceSlices: m.giSlices,
                computeInstanceSlices: m.ciSlices,
                memorySizeMB: m.memorySizeMB,
                parentMemoryBytes: gpu.memoryMiB * 1024 * 1024,
                gpuInstanceProfile: m.giProfile,
              }),
              gpuInstanceSlices: m.giSlices,
              computeInstanceSlices: m.ciSlices,
              memorySizeMB: m.memorySizeMB,
              multiprocessorCount: 0,
            },
          ],
    );
    return { uuid, migEnabled: gpu.migMode, devices };
  };
  return () => ({ ok: true, mig: { read } });
}

const unavailable = (): NvmlMigLoad => ({ ok: false, reason: 'libnvidia-ml.so.1 did not load: absent' });

describe('createMigStrategy', () => {
  let fixture: SysfsFixture;
  let scan: GpuScan;
  beforeAll(async () => {
    fixture = buildMigMachine();
    scan = await scanGpus(fixtureHost(fixture));
  });
  afterAll(() => fixture.remove());

  const resources = (applied: GpuScan, strategy: MigStrategy) =>
    planResources(applied, gpuConfig({ nvidia: { migStrategy: strategy } })).resources.map((r) => [
      r.name,
      r.devices.map((d: PluginDevice) => d.id),
    ]);
  const procfsId = (gpu: number, gi: number, ci: number) =>
    `MIG-${gpu === 0 ? MIG_MACHINE.mixed.uuid : MIG_MACHINE.split.uuid}/${gi}/${ci}`;

  it('none: each MIG-enabled GPU is advertised whole; NVML is not loaded', () => {
    let loads = 0;
    const strategy = createMigStrategy({ logger: silent, nvml: () => (loads++, unavailable()) });
    const applied = strategy.apply(scan, 'none');
    expect(resources(applied, 'none')).toEqual([
      ['nvidia.com/gpu', [MIG_MACHINE.mixed.uuid, MIG_MACHINE.whole.uuid, MIG_MACHINE.split.uuid]],
    ]);
    expect(applied.excluded).toEqual([]);
    expect(loads).toBe(0);
    expect([...(applied.migLayouts ?? [])]).toEqual([
      [MIG_MACHINE.mixed.uuid, 'gi1/ci0,gi7/ci0,gi8/ci0'],
      [MIG_MACHINE.whole.uuid, ''],
      [MIG_MACHINE.split.uuid, 'gi2/ci0,gi2/ci1'],
    ]);
  });

  it('single without NVML: MIG devices by procfs ID under nvidia.com/gpu, as before; NVML tried once', () => {
    let loads = 0;
    const strategy = createMigStrategy({ logger: silent, nvml: () => (loads++, unavailable()) });
    strategy.apply(scan, 'single');
    const applied = strategy.apply(scan, 'single');
    expect(resources(applied, 'single')).toEqual([
      [
        'nvidia.com/gpu',
        [
          ...[procfsId(0, 1, 0), procfsId(0, 7, 0), procfsId(0, 8, 0)],
          MIG_MACHINE.whole.uuid,
          ...[procfsId(2, 2, 0), procfsId(2, 2, 1)],
        ],
      ],
    ]);
    expect(applied.excluded).toEqual([
      {
        path: `/sys/bus/pci/devices/${MIG_MACHINE.mixed.address}`,
        reason: 'MIG enabled: advertised as 3 MIG device(s) instead of the whole GPU',
      },
      {
        path: `/sys/bus/pci/devices/${MIG_MACHINE.split.address}`,
        reason: 'MIG enabled: advertised as 2 MIG device(s) instead of the whole GPU',
      },
    ]);
    expect(applied.warnings).toEqual([]);
    expect(loads).toBe(1);
  });

  it('single with NVML and several profiles: no MIG device advertised, said in excluded and warnings', () => {
    const strategy = createMigStrategy({ logger: silent, nvml: memoryNvml(migMachineNvml) });
    const applied = strategy.apply(scan, 'single');
    expect(resources(applied, 'single')).toEqual([['nvidia.com/gpu', [MIG_MACHINE.whole.uuid]]]);
    const reason =
      'MIG enabled: migStrategy single takes one MIG profile per node, found 1c.3g.40gb, 1g.10gb, 3g.40gb (use mixed); not advertised';
    expect(applied.excluded.map((e) => e.reason)).toEqual([reason, reason]);
    expect(applied.warnings).toEqual([
      "migStrategy single: the node has MIG devices of 3 profiles (1c.3g.40gb, 1g.10gb, 3g.40gb); none is advertised (NVIDIA's plugin refuses such a node; use mixed)",
    ]);
  });

  it('single with NVML and one profile: MIG UUIDs as IDs, in NVML index order, with profile and index', async () => {
    const uniform = buildMigMachine();
    try {
      removeMigInstance(uniform, 0, 1);
      removeMigInstance(uniform, 2, 2);
      const [gpu0, whole, gpu2] = migMachineNvml();
      // NVML numbers gi8 before gi7 here.
      const layout = [
        { ...gpu0, migs: [h100Mig(0, 8, 0, 1), h100Mig(0, 7, 0, 1)] },
        whole,
        { ...gpu2, migs: [] },
      ];
      const strategy = createMigStrategy({ logger: silent, nvml: memoryNvml(() => layout) });
      const applied = strategy.apply(await scanGpus(fixtureHost(uniform)), 'single');
      // GPU 2 has no MIG instance left: procfs shows none, so it is advertised whole (NVML is not asked).
      expect(resources(applied, 'single')).toEqual([
        [
          'nvidia.com/gpu',
          [migMachineUuid(0, 8, 0), migMachineUuid(0, 7, 0), MIG_MACHINE.whole.uuid, MIG_MACHINE.split.uuid],
        ],
      ]);
      expect(applied.gpus[0]?.attributes).toMatchObject({
        mig: 'gi8/ci0',
        migProfile: '1g.10gb',
        migIndex: '0',
        parent: MIG_MACHINE.mixed.uuid,
      });
      expect(applied.warnings).toEqual([]);
    } finally {
      uniform.remove();
    }
  });

  it('mixed with NVML: one nvidia.com/mig-<profile> resource per profile, CI-smaller-than-GI named <c>c.<g>g', () => {
    const strategy = createMigStrategy({ logger: silent, nvml: memoryNvml(migMachineNvml) });
    const applied = strategy.apply(scan, 'mixed');
    expect(resources(applied, 'mixed')).toEqual([
      ['nvidia.com/gpu', [MIG_MACHINE.whole.uuid]],
      ['nvidia.com/mig-1c.3g.40gb', [migMachineUuid(2, 2, 0), migMachineUuid(2, 2, 1)]],
      ['nvidia.com/mig-1g.10gb', [migMachineUuid(0, 7, 0), migMachineUuid(0, 8, 0)]],
      ['nvidia.com/mig-3g.40gb', [migMachineUuid(0, 1, 0)]],
    ]);
    expect(applied.warnings).toEqual([]);
  });

  it('mixed without NVML: every MIG-enabled GPU excluded with the reason; the whole GPU still advertised', () => {
    const strategy = createMigStrategy({ logger: silent, nvml: unavailable });
    const applied = strategy.apply(scan, 'mixed');
    expect(resources(applied, 'mixed')).toEqual([['nvidia.com/gpu', [MIG_MACHINE.whole.uuid]]]);
    const reason =
      'MIG enabled: migStrategy mixed takes the MIG profiles from NVML, which is not available (libnvidia-ml.so.1 did not load: absent); not advertised';
    expect(applied.excluded).toEqual([
      { path: `/sys/bus/pci/devices/${MIG_MACHINE.mixed.address}`, reason },
      { path: `/sys/bus/pci/devices/${MIG_MACHINE.split.address}`, reason },
    ]);
  });

  it('mixed: a GPU NVML cannot read is excluded (and warned about); the other GPU is advertised', () => {
    const [gpu0, whole] = migMachineNvml();
    const strategy = createMigStrategy({ logger: silent, nvml: memoryNvml(() => [gpu0, whole]) });
    const applied = strategy.apply(scan, 'mixed');
    expect(resources(applied, 'mixed').map(([name]) => name)).toEqual([
      'nvidia.com/gpu',
      'nvidia.com/mig-1g.10gb',
      'nvidia.com/mig-3g.40gb',
    ]);
    expect(applied.excluded[1]?.reason).toMatch(
      /from NVML, which failed \(nvmlDeviceGetHandleByUUID returned 6\); not/,
    );
    expect(applied.warnings).toEqual([
      `${MIG_MACHINE.split.address}: MIG devices not read through NVML, which failed (nvmlDeviceGetHandleByUUID returned 6)`,
    ]);
  });

  it('asks NVML once per GPU and layout: again only after the layout changed', async () => {
    const calls: string[] = [];
    let layout = migMachineNvml();
    const strategy = createMigStrategy({ logger: silent, nvml: memoryNvml(() => layout, calls) });
    strategy.apply(scan, 'mixed');
    strategy.apply(await scanGpus(fixtureHost(fixture)), 'mixed');
    expect(calls).toEqual([MIG_MACHINE.mixed.uuid, MIG_MACHINE.split.uuid]);
    const changed = buildMigMachine();
    try {
      removeMigInstance(changed, 2, 2);
      const [gpu0, whole, gpu2] = migMachineNvml();
      layout = [gpu0, whole, { ...gpu2, migs: [] }];
      strategy.apply(await scanGpus(fixtureHost(changed)), 'mixed');
      // GPU 2 lost its MIG devices (no MIG layout to read); GPU 0 kept its layout: no call for either.
      expect(calls).toHaveLength(2);
      removeMigInstance(changed, 0, 8);
      strategy.apply(await scanGpus(fixtureHost(changed)), 'mixed');
      expect(calls).toEqual([MIG_MACHINE.mixed.uuid, MIG_MACHINE.split.uuid, MIG_MACHINE.mixed.uuid]);
    } finally {
      changed.remove();
    }
  });
});

describe('retiredMigDevices', () => {
  it('retires a MIG device once its GPU reports another layout; keeps it while the GPU is missing or unchanged', async () => {
    const fixture = buildMigMachine();
    try {
      const strategy = createMigStrategy({ logger: silent, nvml: unavailable });
      const before = strategy.apply(await scanGpus(fixtureHost(fixture)), 'single');
      const devices = planResources(before, gpuConfig()).resources.flatMap((r) => r.devices);
      const byId = (id: string) => devices.find((d) => d.id === id) as PluginDevice<unknown>;
      const gi8 = byId(`MIG-${MIG_MACHINE.mixed.uuid}/8/0`);
      const gi2 = byId(`MIG-${MIG_MACHINE.split.uuid}/2/0`);
      // Same layouts: nothing retired.
      expect(retiredMigDevices(before)(gi8)).toBe(false);
      removeMigInstance(fixture, 0, 8);
      const after = strategy.apply(await scanGpus(fixtureHost(fixture)), 'single');
      expect(retiredMigDevices(after)(gi8)).toBe(true);
      expect(retiredMigDevices(after)(gi2)).toBe(false);
      // A GPU missing from the scan reports no layout: its MIG devices are not retired.
      // (Layouts from the scan's GPUs here, as for a scan the strategy did not see.)
      const withoutSplit: GpuScan = {
        gpus: after.gpus.filter((g) => g.pciAddress !== MIG_MACHINE.split.address),
        ...{ excluded: [], warnings: [], candidates: [], procfsDirs: [] },
      };
      expect(retiredMigDevices(withoutSplit)(gi2)).toBe(false);
      expect(retiredMigDevices(withoutSplit)(gi8)).toBe(true);
      expect(retiredMigDevices(after)(byId(MIG_MACHINE.whole.uuid))).toBe(false);
    } finally {
      fixture.remove();
    }
  });
});
