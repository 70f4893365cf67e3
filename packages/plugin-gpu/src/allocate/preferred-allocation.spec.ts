import fc from 'fast-check';
import type { PluginDevice } from '@kdp/core';
import type { SysfsFixture } from '@kdp/topology/testing';
import { buildMi300xMachine, MI300X_GPUS, mi300xPartitionId } from '../testing/amd-machines';
import { fixtureDevices, gpuConfig } from '../testing/fixture-devices';
import {
  AMD_GPUS,
  buildAmdMachine,
  buildIntelMachine,
  buildNvidiaMachine,
  INTEL_GPUS,
  NVIDIA_UUIDS,
} from '../testing/machines';
import type { GpuPayload } from '../resources/gpu-payload';
import { amdGpuRecord } from '../testing/amd-machines';
import { fewestGpusAllocation, preferredAllocation } from './preferred-allocation';

describe('preferredAllocation', () => {
  const fixtures: SysfsFixture[] = [];
  afterAll(() => fixtures.forEach((f) => f.remove()));
  const load = async (build: () => SysfsFixture, config = gpuConfig()) => {
    const fixture = build();
    fixtures.push(fixture);
    return fixtureDevices(fixture, config);
  };

  it('NVIDIA: two GPUs from one NUMA node behind one switch', async () => {
    const devices = await load(buildNvidiaMachine);
    const hook = preferredAllocation(1);
    const available = devices.filter((d) => !d.id.startsWith('MIG-'));
    const answer = await hook({ resource: 'nvidia.com/gpu', available, mustInclude: [], size: 2 });
    expect([...answer].sort()).toEqual([NVIDIA_UUIDS['0000:03:00.0'], NVIDIA_UUIDS['0000:04:00.0']].sort());
  });

  it('AMD: prefers the XGMI peer over a GPU on the same NUMA node', async () => {
    const devices = await load(buildAmdMachine);
    const hook = preferredAllocation(1);
    expect(
      await hook({ resource: 'amd.com/gpu', available: devices, mustInclude: [AMD_GPUS.a], size: 2 }),
    ).toEqual([AMD_GPUS.a, AMD_GPUS.c]);
    const pair = await hook({ resource: 'amd.com/gpu', available: devices, mustInclude: [], size: 2 });
    expect([
      [AMD_GPUS.a, AMD_GPUS.c],
      [AMD_GPUS.b, AMD_GPUS.d],
    ]).toContainEqual([...pair].sort());
  });

  it('Intel: a GPU of known NUMA node before the integrated one of unknown locality', async () => {
    const devices = await load(buildIntelMachine);
    const i915 = devices.filter((d) => d.payload?.gpu.kind === 'i915');
    expect(i915.map((d) => d.id).sort()).toEqual([INTEL_GPUS.igpu, INTEL_GPUS.flex].sort());
    const hook = preferredAllocation(1);
    expect(await hook({ resource: 'gpu.intel.com/i915', available: i915, mustInclude: [], size: 1 })).toEqual(
      [INTEL_GPUS.flex],
    );
  });

  describe('replicas (time-slicing)', () => {
    // NVIDIA fixture: NUMA 0 holds GPUs 03 and 04, NUMA 1 holds GPU 83 and the two MIG devices of 86.
    const uuid = (address: keyof typeof NVIDIA_UUIDS) => NVIDIA_UUIDS[address];
    const mig = (gi: number) => `MIG-${NVIDIA_UUIDS['0000:86:00.0']}/${gi}/0`;
    const gpuOf = (id: string) => id.split('::')[0] as string;
    const numaOf = (devices: PluginDevice<GpuPayload>[], id: string) =>
      devices.find((d) => d.id === id)?.numaNodes?.[0];

    it('stay on the NUMA node of the must-include replica, spread over its GPUs', async () => {
      const devices = await load(buildNvidiaMachine, gpuConfig({ sharing: { replicas: 3 } }));
      const must = `${uuid('0000:03:00.0')}::0`;
      const answer = await preferredAllocation(3)({
        resource: 'nvidia.com/gpu',
        available: devices,
        mustInclude: [must],
        size: 3,
      });
      expect(answer).toHaveLength(3);
      expect(answer).toContain(must);
      expect(new Set(answer.map((id) => numaOf(devices, id)))).toEqual(new Set([0]));
      expect(new Set(answer.map(gpuOf))).toEqual(new Set([uuid('0000:03:00.0'), uuid('0000:04:00.0')]));
    });

    it('without must-include: the emptiest NUMA node, even when a GPU elsewhere has more free replicas', async () => {
      const all = await load(buildNvidiaMachine, gpuConfig({ sharing: { replicas: 4 } }));
      // Taken already: one replica of 03 (NUMA 0: 3 + 4 free), every MIG replica but one (NUMA 1: 4 + 1 free).
      const taken = new Set([`${uuid('0000:03:00.0')}::0`, ...[0, 1, 2].map((n) => `${mig(1)}::${n}`)]);
      const available = all.filter((d) => !taken.has(d.id) && !d.id.startsWith(mig(2)));
      const answer = await preferredAllocation(4)({
        resource: 'nvidia.com/gpu',
        available,
        mustInclude: [],
        size: 2,
      });
      expect(answer.map((id) => numaOf(all, id))).toEqual([0, 0]);
      expect(new Set(answer.map(gpuOf)).size).toBe(2);
    });

    it('a request no NUMA node holds takes the NUMA set topology chooses, spread over every GPU', async () => {
      const devices = await load(buildNvidiaMachine, gpuConfig({ sharing: { replicas: 2 } }));
      const answer = await preferredAllocation(2)({
        resource: 'nvidia.com/gpu',
        available: devices,
        mustInclude: [],
        size: 7,
      });
      expect(answer).toHaveLength(7);
      expect(new Set(answer).size).toBe(7);
      expect(new Set(answer.map(gpuOf)).size).toBe(5);
    });
  });

  describe('MI300X in CPX (8 partitions per GPU, XGMI between all, GPUs 0–3 on NUMA 0)', () => {
    let devices: PluginDevice<GpuPayload>[] = [];
    beforeAll(async () => {
      devices = await load(() => buildMi300xMachine({ modes: { compute: 'CPX', memory: 'NPS4' } }));
    }, 60_000);
    const gpuOf = (id: string) => devices.find((d) => d.id === id)?.payload?.gpu.pciAddress;
    const ask = (available: PluginDevice<GpuPayload>[], mustInclude: string[], size: number) =>
      preferredAllocation(1)({ resource: 'amd.com/gpu', available, mustInclude, size });

    it('a request that one GPU holds stays on one GPU, the one with the fewest free partitions', async () => {
      // GPU 2 has 3 partitions left, GPU 5 has 5; every other GPU is whole.
      const taken = new Set([
        ...[0, 1, 2, 3, 4].map((k) => mi300xPartitionId(2, k)),
        ...[0, 1, 2].map((k) => mi300xPartitionId(5, k)),
      ]);
      const available = devices.filter((d) => !taken.has(d.id));
      expect(new Set((await ask(available, [], 3)).map(gpuOf))).toEqual(new Set([MI300X_GPUS[2]]));
      expect(new Set((await ask(available, [], 4)).map(gpuOf))).toEqual(new Set([MI300X_GPUS[5]]));
      expect(new Set((await ask(available, [], 8)).map(gpuOf)).size).toBe(1);
    });

    it('partitions of the must-include GPU first, then of one XGMI peer on the same NUMA node', async () => {
      const must = mi300xPartitionId(6, 3);
      const answer = await ask(devices, [must], 12);
      expect(answer).toHaveLength(12);
      expect(answer[0]).toBe(must);
      const gpus = answer.map(gpuOf);
      expect(gpus.slice(0, 8).every((gpu) => gpu === MI300X_GPUS[6])).toBe(true);
      const second = new Set(gpus.slice(8));
      expect(second.size).toBe(1);
      expect(MI300X_GPUS.slice(4)).toContain([...second][0]);
    });

    it('16 partitions take two whole GPUs of one NUMA node', async () => {
      const answer = await ask(devices, [], 16);
      const gpus = new Set(answer.map(gpuOf));
      expect(gpus.size).toBe(2);
      const numa = new Set(answer.map((id) => devices.find((d) => d.id === id)?.numaNodes?.[0]));
      expect(numa.size).toBe(1);
    });
  });

  it('fewestGpusAllocation: right size, keeps mustInclude, never more GPUs than a brute force needs', () => {
    const device = (id: string, gpu: number, numa: number, peers: string[]): PluginDevice<GpuPayload> => ({
      id,
      health: 'Healthy',
      numaNodes: [numa],
      payload: { gpu: amdGpuRecord({ id, pciAddress: `gpu${gpu}`, numaNodes: [numa], xgmiPeers: peers }) },
    });
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 16 }),
        fc.boolean(),
        (counts, sizeSeed, withMust) => {
          const ids = counts.flatMap((n, gpu) => Array.from({ length: n }, (_, k) => `g${gpu}p${k}`));
          const available = counts.flatMap((n, gpu) =>
            Array.from({ length: n }, (_, k) =>
              device(
                `g${gpu}p${k}`,
                gpu,
                gpu % 2,
                ids.filter((id) => !id.startsWith(`g${gpu}p`) && (gpu + Number(id[1])) % 3 !== 0),
              ),
            ),
          );
          const size = 1 + (sizeSeed % ids.length);
          const must = withMust && size > 1 ? [ids[ids.length - 1] as string] : [];
          const chosen = fewestGpusAllocation({
            resource: 'amd.com/gpu',
            available,
            mustInclude: must,
            size,
          });
          expect(chosen).toHaveLength(size);
          expect(new Set(chosen).size).toBe(size);
          for (const m of must) expect(chosen).toContain(m);
          const gpusOf = (set: readonly string[]) => new Set(set.map((id) => id.split('p')[0])).size;
          let fewest = Number.POSITIVE_INFINITY;
          for (let mask = 0; mask < 1 << ids.length; mask++) {
            const set = ids.filter((_, i) => mask & (1 << i));
            if (set.length === size && must.every((m) => set.includes(m)))
              fewest = Math.min(fewest, gpusOf(set));
          }
          expect(gpusOf(chosen)).toBe(fewest);
        },
      ),
    );
  });
});
