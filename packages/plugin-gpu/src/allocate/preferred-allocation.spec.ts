import fc from 'fast-check';
import type { SysfsFixture } from '@kdp/topology/testing';
import {
  AMD_GPUS,
  buildAmdMachine,
  buildNvidiaMachine,
  fixtureDevices,
  gpuConfig,
  NVIDIA_UUIDS,
} from '../testing';
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

  it('replicas: spread over GPUs first (distributed)', async () => {
    const devices = await load(buildNvidiaMachine, gpuConfig({ sharing: { replicas: 3 } }));
    const hook = preferredAllocation(3);
    const answer = await hook({ resource: 'nvidia.com/gpu', available: devices, mustInclude: [], size: 3 });
    const gpus = new Set(answer.map((id) => id.split('::')[0]));
    expect(gpus.size).toBe(3);
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
