import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildFakeNvml, type FakeNvml } from '../testing/fake-nvml';
import { h100Mig, MIG_MACHINE, migMachineNvml, migMachineUuid } from '../testing/mig-machine';
import { loadNvmlMig, type NvmlMig } from './nvml-mig';

describe('loadNvmlMig', () => {
  let dir: string;
  let fake: FakeNvml;
  let mig: NvmlMig;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'kdp-nvml-mig-'));
    fake = buildFakeNvml(dir, { gpus: migMachineNvml() });
    const load = loadNvmlMig({ library: fake.library });
    if (!load.ok) throw new Error(load.reason);
    mig = load.mig;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('absent library: not available, saying which library and why', () => {
    const load = loadNvmlMig({ library: join(dir, 'libnvidia-ml-absent.so.1') });
    expect(load).toEqual({
      ok: false,
      reason: expect.stringMatching(
        /libnvidia-ml-absent\.so\.1 did not load: cannot open shared object file/,
      ),
    });
  });

  it('lists MIG devices with index, UUID, GI/CI ids, attributes and NVIDIA profile names', () => {
    const gpu = mig.read(MIG_MACHINE.mixed.uuid);
    expect(gpu.migEnabled).toBe(true);
    expect(
      gpu.devices.map((d) => [d.index, d.uuid, d.gpuInstanceId, d.computeInstanceId, d.profile]),
    ).toEqual([
      [0, migMachineUuid(0, 1, 0), 1, 0, '3g.40gb'],
      [1, migMachineUuid(0, 7, 0), 7, 0, '1g.10gb'],
      [2, migMachineUuid(0, 8, 0), 8, 0, '1g.10gb'],
    ]);
    expect(gpu.devices[0]).toMatchObject({
      gpuInstanceSlices: 3,
      computeInstanceSlices: 3,
      memorySizeMB: 40_448,
      multiprocessorCount: 42,
    });
    // Compute instances smaller than their GPU instance: <c>c.<g>g.<gb>gb.
    expect(mig.read(MIG_MACHINE.split.uuid).devices.map((d) => d.profile)).toEqual([
      '1c.3g.40gb',
      '1c.3g.40gb',
    ]);
    expect(mig.read(MIG_MACHINE.whole.uuid)).toEqual({
      uuid: MIG_MACHINE.whole.uuid,
      migEnabled: false,
      devices: [],
    });
  });

  it('a new layout is read at the next call: empty indexes skipped, media-extension profiles named +me', () => {
    const gpus = migMachineNvml();
    const me = { ...h100Mig(0, 9, 0, 1), giProfile: 7 };
    fake.setGpus([{ ...gpus[0], migs: [undefined, me, h100Mig(0, 2, 0, 3)] }, ...gpus.slice(1)]);
    try {
      const devices = mig.read(MIG_MACHINE.mixed.uuid).devices;
      expect(devices.map((d) => [d.index, d.gpuInstanceId, d.profile])).toEqual([
        [1, 9, '1g.10gb+me'],
        [2, 2, '3g.40gb'],
      ]);
    } finally {
      fake.setGpus(gpus);
    }
  });

  it('an unknown GPU: throws naming the NVML call and its code', () => {
    expect(() => mig.read('GPU-00000000-0000-4000-8000-0000000000ff')).toThrow(
      'nvmlDeviceGetHandleByUUID returned 6',
    );
  });
});
