import type { SysfsFixture } from '@kdp/topology/testing';
import {
  buildMi300xMachine,
  MI300X_GPUS,
  mi300xPartitionId,
  type Mi300xModes,
} from '../testing/amd-machines';
import { fixtureDevices, gpuConfig } from '../testing/fixture-devices';
import { amdCounterSetName, amdDraPool, amdWholeGpuId } from './amd-dra-pool';

// Building and scanning an eight-GPU fixture takes seconds on a loaded machine.
jest.setTimeout(60_000);

describe('amdDraPool (MI300X partitions under DRA, KEP 4815)', () => {
  const fixtures: SysfsFixture[] = [];
  afterAll(() => fixtures.forEach((f) => f.remove()));
  const poolOf = async (modes: Mi300xModes) => {
    const fixture = buildMi300xMachine({ modes });
    fixtures.push(fixture);
    const devices = await fixtureDevices(fixture, gpuConfig());
    return { devices, pool: amdDraPool(devices) };
  };
  const gpu0 = MI300X_GPUS[0];
  const set0 = amdCounterSetName(gpu0);

  it('CPX × NPS4: a counter set per GPU (8 dies, 4 memory partitions), the whole GPU takes all, each XCP its share', async () => {
    const { devices, pool } = await poolOf({ compute: 'CPX', memory: 'NPS4' });
    expect(devices).toHaveLength(64);
    expect(pool.sharedCounters).toHaveLength(8);
    expect(pool.sharedCounters?.find((s) => s.name === set0)).toEqual({
      name: 'gpu-0000-05-00-0',
      counters: { xcc: 8, 'memory-partitions': 4 },
    });
    // 8 partitions as the device-plugin mode advertises them, plus the whole GPU, per GPU.
    expect(pool.devices).toHaveLength(72);
    const whole = pool.devices.find((d) => d.id === amdWholeGpuId(gpu0));
    expect(whole?.consumesCounters).toEqual([
      { counterSet: set0, counters: { xcc: 8, 'memory-partitions': 4 } },
    ]);
    expect(whole?.attributes).toMatchObject({ scope: 'gpu', partitions: '8', computePartition: 'CPX' });
    expect(whole?.attributes?.['partition']).toBeUndefined();
    // The whole GPU hands over every partition's card and render node.
    expect(whole?.payload?.gpu.deviceNodes).toHaveLength(16);
    const partition = pool.devices.find((d) => d.id === mi300xPartitionId(0, 3));
    expect(partition?.consumesCounters).toEqual([
      { counterSet: set0, counters: { xcc: 1, 'memory-partitions': '500m' } },
    ]);
    expect(partition?.attributes).toMatchObject({ scope: 'partition', partition: '3' });
    // The source's devices are left as they are (the device-plugin mode's).
    expect(devices.find((d) => d.id === mi300xPartitionId(0, 3))?.attributes?.['scope']).toBeUndefined();
  });

  it('DPX × NPS1 and SPX × NPS1: the devices follow the mode, the counters stay the GPU’s', async () => {
    const dpx = (await poolOf({ compute: 'DPX', memory: 'NPS1' })).pool;
    expect(
      dpx.devices.filter((d) => d.payload?.gpu.pciAddress === gpu0).map((d) => d.consumesCounters),
    ).toEqual([
      [{ counterSet: set0, counters: { xcc: 8, 'memory-partitions': 1 } }],
      [{ counterSet: set0, counters: { xcc: 4, 'memory-partitions': '500m' } }],
      [{ counterSet: set0, counters: { xcc: 4, 'memory-partitions': '500m' } }],
    ]);
    const spx = (await poolOf({ compute: 'SPX', memory: 'NPS1' })).pool;
    expect(spx.devices).toHaveLength(8);
    expect(spx.devices.find((d) => d.id === gpu0)).toMatchObject({
      attributes: expect.objectContaining({ scope: 'gpu' }),
      consumesCounters: [{ counterSet: set0, counters: { xcc: 8, 'memory-partitions': 1 } }],
    });
    expect(spx.sharedCounters?.find((s) => s.name === set0)?.counters).toEqual({
      xcc: 8,
      'memory-partitions': 1,
    });
  });

  it('leaves GPUs without partition modes and time-slicing replicas as they are, without counters', () => {
    const plain = { id: 'x', health: 'Healthy' as const, payload: { gpu: { kind: 'amd' } } };
    const replica = {
      id: 'y::0',
      health: 'Healthy' as const,
      payload: { gpu: { kind: 'amd', partitionModes: { compute: 'SPX' } }, replica: 0 },
    };
    const pool = amdDraPool([plain, replica] as never[]);
    expect(pool).toEqual({ devices: [plain, replica], sharedCounters: [] });
  });
});
