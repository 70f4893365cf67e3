import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildFakeNvml, type FakeNvml } from '../testing/fake-nvml';
import { loadNvmlMig } from './nvml-mig';
import { loadNvmlPartitions, type NvmlPartitions } from './nvml-partitions';

const A100 = 'GPU-a1000000-0000-4000-8000-000000000001';
const H100 = 'GPU-h1000000-0000-4000-8000-000000000002';
const PLAIN = 'GPU-00000000-0000-4000-8000-000000000003';

describe('loadNvmlPartitions (fake NVML)', () => {
  let dir: string;
  let fake: FakeNvml;
  let nvml: NvmlPartitions;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kdp-nvml-partitions-'));
    fake = buildFakeNvml(dir, {
      gpus: [
        { uuid: A100, memoryMiB: 40_536, migMode: true, chip: 'a100-40gb' },
        { uuid: H100, memoryMiB: 81_559, migMode: true },
        { uuid: PLAIN, memoryMiB: 81_559, migMode: false },
      ],
    });
    const load = loadNvmlPartitions(fake.library);
    if (!load.ok) throw new Error(load.reason);
    nvml = load.partitions;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('A100-40GB and H100-80GB: the profiles NVML reports, with engines, memory and possible placements', () => {
    const a100 = nvml.profiles(A100).profiles;
    expect(
      a100.map((p) => [p.name, p.id, p.slices, p.placements.map((x) => `${x.start}:${x.size}`)]),
    ).toEqual([
      ['1g.5gb', 19, 1, ['0:1', '1:1', '2:1', '3:1', '4:1', '5:1', '6:1']],
      ['2g.10gb', 14, 2, ['0:2', '2:2', '4:2']],
      ['3g.20gb', 9, 3, ['0:4', '4:4']],
      ['4g.20gb', 5, 4, ['0:4']],
      ['7g.40gb', 0, 7, ['0:8']],
      ['1g.5gb+me', 20, 1, ['0:1', '1:1', '2:1', '3:1', '4:1', '5:1', '6:1']],
      ['1g.10gb', 15, 1, ['0:2', '2:2', '4:2', '6:2']],
    ]);
    const h100 = nvml.profiles(H100).profiles;
    expect(h100.map((p) => p.name)).toEqual([
      '1g.10gb',
      '2g.20gb',
      '3g.40gb',
      '4g.40gb',
      '7g.80gb',
      '1g.10gb+me',
      '1g.20gb',
    ]);
    expect(h100.find((p) => p.name === '7g.80gb')).toMatchObject({
      multiprocessors: 132,
      copyEngines: 8,
      decoders: 7,
      jpegEngines: 7,
      ofaEngines: 1,
      memorySizeMB: 80_896,
    });
    expect(nvml.profiles(PLAIN)).toEqual({ uuid: PLAIN, migEnabled: false, profiles: [], instances: [] });
  });

  it('creates GPU + compute instances at a placement, refuses an overlap, reuses and destroys', () => {
    const first = nvml.create(H100, 19, 0); // 1g.10gb at slice 0
    expect(first).toEqual({
      gpuInstanceId: 1,
      computeInstanceId: 0,
      uuid: 'MIG-00000001-0001-4000-8000-00000000cafe',
      created: true,
    });
    const second = nvml.create(H100, 9, 4); // 3g.40gb at slices 4–7
    expect(second).toMatchObject({ gpuInstanceId: 2, created: true });
    // 2g.20gb at slices 0–1 overlaps the 1g.10gb: NVML_ERROR_INSUFFICIENT_RESOURCES.
    expect(() => nvml.create(H100, 14, 0)).toThrow('nvmlDeviceCreateGpuInstanceWithPlacement returned 23');
    expect(() => nvml.create(H100, 14, 1)).toThrow('cannot be placed at memory slice 1');
    // Asked again (a prepare repeated after a restart): the same instance.
    expect(nvml.create(H100, 19, 0)).toEqual({ ...first, created: false });
    expect(nvml.profiles(H100).instances).toEqual([
      { profileId: 19, start: 0, size: 1 },
      { profileId: 9, start: 4, size: 4 },
    ]);
    const h100 = fake.readGpus()[1];
    expect(h100?.gpuInstances).toEqual([
      { id: 1, profile: 0, start: 0 },
      { id: 2, profile: 2, start: 4 },
    ]);
    expect(h100?.migs?.map((m) => [m?.uuid, m?.giSlices, m?.ciSlices, m?.memorySizeMB])).toEqual([
      [first.uuid, 1, 1, 9984],
      [second.uuid, 3, 3, 40_448],
    ]);
    // The MIG devices are what NVML lists, with their profiles.
    const mig = loadNvmlMig({ library: fake.library });
    if (!mig.ok) throw new Error(mig.reason);
    expect(mig.mig.read(H100).devices.map((d) => [d.uuid, d.profile])).toEqual([
      [first.uuid, '1g.10gb'],
      [second.uuid, '3g.40gb'],
    ]);
    expect(nvml.destroy(H100, 19, 0)).toBe(true);
    expect(nvml.destroy(H100, 19, 0)).toBe(false);
    expect(fake.readGpus()[1]?.gpuInstances).toEqual([{ id: 2, profile: 2, start: 4 }]);
    // Now free: the 2g.20gb fits.
    expect(nvml.create(H100, 14, 0)).toMatchObject({ created: true });
  });

  it('+me profiles: one per GPU (the one OFA engine)', () => {
    nvml.create(A100, 20, 0);
    expect(() => nvml.create(A100, 20, 1)).toThrow('returned 23');
    expect(nvml.create(A100, 19, 1)).toMatchObject({ created: true });
  });

  it('a GPU without MIG mode: creation is refused', () => {
    expect(() => nvml.create(PLAIN, 19, 0)).toThrow('has no MIG profile 19');
  });
});
