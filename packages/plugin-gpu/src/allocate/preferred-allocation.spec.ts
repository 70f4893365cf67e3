import fc from 'fast-check';
import type { PluginDevice } from '@kdp/core';
import type { SysfsFixture } from '@kdp/topology/testing';
import {
  AMD_GPUS,
  buildAmdMachine,
  buildIntelMachine,
  buildNvidiaMachine,
  fixtureDevices,
  gpuConfig,
  INTEL_GPUS,
  NVIDIA_UUIDS,
} from '../testing';
import type { GpuPayload } from '../resources/plan-resources';
import { lowestWeightSubset, preferredAllocation } from './preferred-allocation';

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

  it('lowestWeightSubset: right size, keeps mustInclude, optimal against brute force on small sets', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 7 }),
        fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 49, maxLength: 49 }),
        fc.integer({ min: 1, max: 7 }),
        (n, w, sizeSeed) => {
          const items = Array.from({ length: n }, (_, i) => i);
          const size = 1 + (sizeSeed % n);
          const weight = (a: number, b: number) => w[Math.min(a, b) * 7 + Math.max(a, b)] as number;
          const must = n > 2 ? [0] : [];
          const chosen = lowestWeightSubset(items, must, size, weight);
          expect(chosen).toHaveLength(size);
          expect(new Set(chosen).size).toBe(size);
          for (const m of must) expect(chosen).toContain(m);
          const cost = (set: number[]) =>
            set.reduce((sum, a, i) => sum + set.slice(i + 1).reduce((s2, b) => s2 + weight(a, b), 0), 0);
          let best = Number.POSITIVE_INFINITY;
          for (let mask = 0; mask < 1 << n; mask++) {
            const set = items.filter((i) => mask & (1 << i));
            if (set.length === size && must.every((m) => set.includes(m))) best = Math.min(best, cost(set));
          }
          expect(cost(chosen)).toBe(best);
        },
      ),
    );
  });
});
