import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DiscoverDocument } from '@kdp/core/plugin';
import { runPluginCommand, startPluginRun } from '@kdp/core/testing';
import { createKubeletSim } from '@kdp/kubelet-sim';
import type { SysfsFixture } from '@kdp/topology/testing';
import { loadNvmlMig } from './nvml/nvml-mig';
import { createGpuPlugin } from './plugin';
import { addMigInstance } from './testing/driver-files';
import { rootFlags } from './testing/fixture-devices';
import { unplugGpu } from './testing/hot-plug';
import { buildFakeNvml, type FakeNvml } from './testing/fake-nvml';
import {
  buildMigMachine,
  h100Mig,
  MIG_MACHINE,
  migMachineNvml,
  migMachineUuid,
  removeMigInstance,
} from './testing/mig-machine';

// MIG strategies end to end: discover with the gcc-built fake NVML (or none), and serve through a re-partition.

const noXid = () => undefined;
const withNvml = (library: string) =>
  createGpuPlugin({ xidSource: noXid, nvmlMig: () => loadNvmlMig({ library }) });

describe('gpu-device-plugin on a MIG node', () => {
  let fixture: SysfsFixture;
  let fake: FakeNvml;
  let mixed: string;
  beforeAll(() => {
    fixture = buildMigMachine();
    fake = buildFakeNvml(mkdtempSync(join(fixture.base, 'nvml-')), { gpus: migMachineNvml() });
    mixed = join(fixture.base, 'mixed.yaml');
    writeFileSync(mixed, 'nvidia:\n  migStrategy: mixed\n');
  });
  afterAll(() => fixture.remove());

  const discover = async (plugin: ReturnType<typeof createGpuPlugin>): Promise<DiscoverDocument> => {
    const argv = ['discover', ...rootFlags(fixture), '--config', mixed, '--output', 'json'];
    const { code, stdout, stderr } = await runPluginCommand(plugin, argv);
    if (code !== 0) throw new Error(`discover exited ${code}: ${stderr}`);
    return JSON.parse(stdout) as DiscoverDocument;
  };

  it('discover, mixed, NVML present: one nvidia.com/mig-<profile> resource per profile, MIG UUIDs', async () => {
    const doc = await discover(withNvml(fake.library));
    expect(doc.resources.map((r) => [r.resourceName, r.devices.map((d) => d.id)])).toEqual([
      ['nvidia.com/gpu', [MIG_MACHINE.whole.uuid]],
      ['nvidia.com/mig-1c.3g.40gb', [migMachineUuid(2, 2, 0), migMachineUuid(2, 2, 1)]],
      ['nvidia.com/mig-1g.10gb', [migMachineUuid(0, 7, 0), migMachineUuid(0, 8, 0)]],
      ['nvidia.com/mig-3g.40gb', [migMachineUuid(0, 1, 0)]],
    ]);
    const device = doc.resources[3]?.devices[0];
    expect(device?.envs).toEqual({ NVIDIA_VISIBLE_DEVICES: migMachineUuid(0, 1, 0) });
    expect(device?.attributes).toMatchObject({ mig: 'gi1/ci0', migProfile: '3g.40gb', migIndex: '0' });
    expect(doc.excluded.map((e) => e.reason)).toEqual([
      'MIG enabled: advertised as 3 MIG device(s) instead of the whole GPU',
      'MIG enabled: advertised as 2 MIG device(s) instead of the whole GPU',
    ]);
    expect(doc.warnings).toEqual([]);
  });

  it('discover, mixed, no NVML: the MIG-enabled GPUs are excluded, saying why', async () => {
    const doc = await discover(withNvml(join(fixture.base, 'absent', 'libnvidia-ml.so.1')));
    expect(doc.resources.map((r) => [r.resourceName, r.devices.map((d) => d.id)])).toEqual([
      ['nvidia.com/gpu', [MIG_MACHINE.whole.uuid]],
    ]);
    expect(doc.excluded).toEqual(
      [MIG_MACHINE.mixed.address, MIG_MACHINE.split.address].map((address) => ({
        path: `/sys/bus/pci/devices/${address}`,
        reason: expect.stringMatching(
          /^MIG enabled: migStrategy mixed takes the MIG profiles from NVML, which is not available \(\/.+\/absent\/libnvidia-ml\.so\.1 did not load: .*No such file or directory\); not advertised$/,
        ),
      })),
    );
  });

  it('serve, mixed: a re-partitioned GPU drops its old MIG devices; a GPU that falls off keeps them Unhealthy', async () => {
    const dir = mkdtempSync(join(fixture.base, 'dp-'));
    const sim = await createKubeletSim({ dir });
    const run = startPluginRun(withNvml(fake.library), [
      'serve',
      ...rootFlags(fixture),
      ...['--device-plugin-dir', dir, '--config', mixed, '--poll-interval', '50ms'],
    ]);
    try {
      const small = 'nvidia.com/mig-1g.10gb';
      const split = 'nvidia.com/mig-1c.3g.40gb';
      await sim.until(small, (s) => s.healthy.length === 2);
      await sim.until(split, (s) => s.healthy.length === 2);
      // Re-partition GPU 0: gi8 destroyed, gi9 created (NVML first, then procfs, as nvidia-smi leaves them).
      const [gpu0, ...rest] = migMachineNvml();
      fake.setGpus([
        { ...gpu0, migs: [h100Mig(0, 1, 0, 3), h100Mig(0, 7, 0, 1), h100Mig(0, 9, 0, 1)] },
        ...rest,
      ]);
      removeMigInstance(fixture, 0, 8);
      addMigInstance(fixture, 0, 9, [0]);
      const after = await sim.until(small, (s) => s.devices.some((d) => d.ID === migMachineUuid(0, 9, 0)));
      // gi8's MIG device is gone at once, not kept Unhealthy.
      expect([[...after.healthy].sort(), after.unhealthy]).toEqual([
        [migMachineUuid(0, 7, 0), migMachineUuid(0, 9, 0)],
        [],
      ]);
      // GPU 2 falls off the bus: no new layout is reported, so its MIG devices stay, Unhealthy.
      unplugGpu(fixture, MIG_MACHINE.split.address);
      const gone = await sim.until(split, (s) => s.unhealthy.length === 2);
      expect([...gone.unhealthy].sort()).toEqual([migMachineUuid(2, 2, 0), migMachineUuid(2, 2, 1)]);
    } finally {
      await run.stop();
      await sim.close();
    }
  }, 60_000);
});
