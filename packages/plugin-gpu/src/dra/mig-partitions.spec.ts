import type { PluginDevice } from '@kdp/core';
import type { MigGpuInstanceProfile, MigGpuProfiles } from '../nvml/nvml-partitions';
import type { GpuPayload } from '../resources/gpu-payload';
import type { Gpu } from '../scan/gpu';
import { migPartitionName, migPartitionPool } from './mig-partitions';

const UUID = 'GPU-00000000-0000-4000-8000-000000000000';

const gpu = (over: Partial<Gpu> = {}): Gpu => ({
  kind: 'nvidia',
  id: UUID,
  pciAddress: '0000:10:00.0',
  model: 'NVIDIA H100 80GB HBM3',
  numaNodes: [0],
  pciePath: [],
  deviceNodes: ['/dev/nvidia0'],
  sharedNodes: ['/dev/nvidiactl'],
  mounts: [],
  attributes: { model: 'NVIDIA H100 80GB HBM3', uuid: UUID, minor: '0' },
  problems: [],
  xgmiPeers: [],
  ...over,
});

const device = (g: Gpu, payload: Partial<GpuPayload> = {}): PluginDevice<GpuPayload> => ({
  id: g.id,
  health: 'Healthy',
  attributes: g.attributes,
  payload: { gpu: g, ...payload },
});

const engines = { copyEngines: 1, decoders: 1, encoders: 0, jpegEngines: 1, ofaEngines: 0 };
const profile = (over: Partial<MigGpuInstanceProfile>): MigGpuInstanceProfile => ({
  index: 0,
  id: 19,
  name: '1g.10gb',
  slices: 1,
  instances: 7,
  multiprocessors: 16,
  memorySizeMB: 9984,
  placements: [],
  ...engines,
  ...over,
});

/** Part of an H100's profiles: 1g.10gb at 0–6, 1g.10gb+me, 3g.40gb at 0 and 4, 7g.80gb. */
const H100: MigGpuProfiles = {
  uuid: UUID,
  migEnabled: true,
  instances: [],
  profiles: [
    profile({ placements: Array.from({ length: 7 }, (_, start) => ({ start, size: 1 })) }),
    profile({
      index: 7,
      id: 20,
      name: '1g.10gb+me',
      instances: 1,
      ofaEngines: 1,
      placements: [{ start: 6, size: 1 }],
    }),
    profile({
      index: 2,
      id: 9,
      name: '3g.40gb',
      slices: 3,
      copyEngines: 3,
      decoders: 3,
      jpegEngines: 3,
      memorySizeMB: 40_448,
      placements: [
        { start: 0, size: 4 },
        { start: 4, size: 4 },
      ],
    }),
    profile({
      index: 4,
      id: 0,
      name: '7g.80gb',
      slices: 7,
      copyEngines: 8,
      decoders: 7,
      jpegEngines: 7,
      ofaEngines: 1,
      memorySizeMB: 80_896,
      placements: [{ start: 0, size: 8 }],
    }),
    // A profile NVML lists without placements (none fit this GPU): no device.
    profile({ index: 9, id: 15, name: '1g.20gb', placements: [] }),
  ],
};

describe('migPartitionPool', () => {
  it('a MIG-mode GPU: a counter set, a device per placement taking its share, the GPU taking everything', () => {
    const pool = migPartitionPool([device(gpu())], () => H100);
    expect(pool.sharedCounters).toEqual([
      {
        name: 'gpu-0-mig',
        counters: {
          ...Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`memory-slice-${i}`, 1])),
          'compute-slices': 7,
          'copy-engines': 8,
          decoders: 7,
          'jpeg-engines': 7,
          'ofa-engines': 1,
        },
      },
    ]);
    expect(pool.devices.map((d) => d.id)).toEqual([
      UUID,
      ...Array.from({ length: 7 }, (_, i) => `gpu-0-mig-1g10gb-${i}`),
      'gpu-0-mig-1g10gb-me-6',
      'gpu-0-mig-3g40gb-0',
      'gpu-0-mig-3g40gb-4',
      'gpu-0-mig-7g80gb-0',
    ]);
    expect(pool.devices[0]?.consumesCounters).toEqual([
      { counterSet: 'gpu-0-mig', counters: pool.sharedCounters?.[0]?.counters },
    ]);
    const threeG = pool.devices.find((d) => d.id === 'gpu-0-mig-3g40gb-4');
    expect(threeG?.consumesCounters).toEqual([
      {
        counterSet: 'gpu-0-mig',
        counters: {
          'memory-slice-4': 1,
          'memory-slice-5': 1,
          'memory-slice-6': 1,
          'memory-slice-7': 1,
          'compute-slices': 3,
          'copy-engines': 3,
          decoders: 3,
          'jpeg-engines': 3,
        },
      },
    ]);
    expect(threeG?.attributes).toEqual({
      model: 'NVIDIA H100 80GB HBM3',
      minor: '0',
      parentUUID: UUID,
      profile: '3g.40gb',
      placementStart: '4',
      placementSize: '4',
      memoryMiB: '40448',
      multiprocessors: '16',
    });
    expect(threeG?.payload?.partition).toEqual({ profile: H100.profiles[2], start: 4, size: 4 });
    expect(threeG?.payload?.gpu.id).toBe(UUID);
    // +me takes the one OFA engine: two cannot both be allocated, nor with the 7g.
    expect(
      pool.devices.find((d) => d.id === 'gpu-0-mig-1g10gb-me-6')?.consumesCounters?.[0]?.counters,
    ).toMatchObject({ 'memory-slice-6': 1, 'ofa-engines': 1 });
  });

  it('instances already there (made outside the driver, or for a claim): their memory slices are used up', () => {
    const pool = migPartitionPool([device(gpu())], () => ({
      ...H100,
      instances: [
        { profileId: 9, start: 4, size: 4 },
        { profileId: 19, start: 1, size: 1 },
      ],
    }));
    expect(pool.sharedCounters?.[0]?.counters).toMatchObject({
      'memory-slice-0': 1,
      'memory-slice-1': 0,
      'memory-slice-2': 1,
      'memory-slice-3': 1,
      'memory-slice-4': 0,
      'memory-slice-7': 0,
      'compute-slices': 7,
    });
    // The devices stay: one made for a claim is still allocated to it.
    expect(pool.devices).toHaveLength(1 + 7 + 1 + 2 + 1);
  });

  it('an unhealthy GPU: its partitions are unhealthy with its problem', () => {
    const sick = { ...device(gpu()), health: 'Unhealthy' as const, problem: 'Xid 79' };
    const pool = migPartitionPool([sick], () => H100);
    expect(new Set(pool.devices.map((d) => `${d.health}:${d.problem}`))).toEqual(
      new Set(['Unhealthy:Xid 79']),
    );
  });

  it('published as today: MIG off, profiles unknown, replicas, static MIG devices, other vendors', () => {
    const off = device(gpu());
    const replica = device(gpu({ id: 'GPU-r', attributes: { minor: '1' } }), { replica: 0 });
    const mig = device(gpu({ kind: 'nvidia-mig', id: 'MIG-x', attributes: { minor: '2' } }));
    const amd = device(gpu({ kind: 'amd', id: '0000:20:00.0', attributes: {} }));
    const unknown = device(gpu({ id: 'GPU-u', attributes: { minor: '3' } }));
    const asked: string[] = [];
    const pool = migPartitionPool([off, replica, mig, amd, unknown], (uuid) => {
      asked.push(uuid);
      return uuid === UUID ? { uuid, migEnabled: false, profiles: [], instances: [] } : undefined;
    });
    expect(pool).toEqual({ devices: [off, replica, mig, amd, unknown] });
    expect(asked).toEqual([UUID, 'GPU-u']);
  });

  it('names partitions as DNS labels', () => {
    expect(migPartitionName('3', '1g.10gb+me.all', 5)).toBe('gpu-3-mig-1g10gb-me-all-5');
    expect(migPartitionName('0', '1c.3g.40gb', 0)).toBe('gpu-0-mig-1c3g40gb-0');
  });
});
