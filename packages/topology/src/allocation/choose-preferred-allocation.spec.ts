import fc from 'fast-check';
import type { DeviceLocality, PreferredAllocationInput } from './allocation-types';
import { allocationCost, compareAllocationCost } from './allocation-cost';
import type { AllocationCost } from './allocation-cost';
import { choosePreferredAllocation } from './choose-preferred-allocation';
import { referencePreferredAllocation } from './reference-preferred-allocation.fixture';

/** Every subset of `universe` with `total` members that holds `must`, cheapest first by the policy's cost. */
function bruteForceOptimum(input: PreferredAllocationInput, total: number): AllocationCost {
  const universe = [...new Set([...input.available, ...input.mustInclude])];
  const must = new Set(input.mustInclude);
  let best: AllocationCost | undefined;
  for (let mask = 0; mask < 1 << universe.length; mask++) {
    const ids = universe.filter((_, i) => mask & (1 << i));
    if (ids.length !== total || [...must].some((m) => !ids.includes(m))) continue;
    const cost = allocationCost(ids, input.locality, input.distances);
    if (!best || compareAllocationCost(cost, best) < 0) best = cost;
  }
  if (!best) throw new Error('brute force found no subset');
  return best;
}

const localityArb: fc.Arbitrary<DeviceLocality | undefined> = fc.option(
  fc.record(
    {
      numaNodes: fc.oneof(
        { weight: 6, arbitrary: fc.integer({ min: 0, max: 3 }).map((n) => [n]) },
        { weight: 1, arbitrary: fc.uniqueArray(fc.integer({ min: 0, max: 3 }), { maxLength: 2 }) },
        { weight: 1, arbitrary: fc.constant([-1]) },
      ),
      pciePath: fc.array(fc.constantFrom('r0', 'r1', 's0', 's1', 'd0', 'd1'), { maxLength: 3 }),
    },
    { requiredKeys: ['numaNodes'] },
  ),
  { freq: 6 },
);

const distanceArb = fc.option(
  fc.array(fc.integer({ min: 11, max: 40 }), { minLength: 6, maxLength: 6 }).map((remote) => {
    const pairs = [
      [0, 1],
      [0, 2],
      [0, 3],
      [1, 2],
      [1, 3],
      [2, 3],
    ];
    const matrix = new Map<number, Map<number, number>>();
    for (let n = 0; n < 4; n++) matrix.set(n, new Map([[n, 10]]));
    pairs.forEach(([a, b], i) => {
      matrix.get(a as number)?.set(b as number, remote[i] as number);
      matrix.get(b as number)?.set(a as number, remote[i] as number);
    });
    return matrix as ReadonlyMap<number, ReadonlyMap<number, number>>;
  }),
  { nil: undefined },
);

const inputArb: fc.Arbitrary<PreferredAllocationInput> = fc
  .record({
    localities: fc.array(localityArb, { minLength: 1, maxLength: 9 }),
    availableMask: fc.array(fc.boolean(), { minLength: 9, maxLength: 9 }),
    mustMask: fc.array(fc.boolean(), { minLength: 9, maxLength: 9 }),
    size: fc.integer({ min: 0, max: 10 }),
    distances: distanceArb,
  })
  .map(({ localities, availableMask, mustMask, size, distances }) => {
    const ids = localities.map((_, i) => `dev-${i}`);
    const locality = new Map<string, DeviceLocality>();
    localities.forEach((l, i) => l && locality.set(ids[i] as string, l));
    const mustInclude = ids.filter((_, i) => mustMask[i]);
    const available = ids.filter((_, i) => availableMask[i] || !mustInclude.includes(ids[i] as string));
    return {
      available,
      mustInclude,
      size,
      locality,
      ...(distances ? { distances } : {}),
    };
  });

function expectedSize(input: PreferredAllocationInput): number {
  const universe = new Set([...input.available, ...input.mustInclude]);
  return Math.max(new Set(input.mustInclude).size, Math.min(input.size, universe.size));
}

/** Bigger machines than brute force can check: up to 40 devices on 4 NUMA nodes, some on shared paths. */
const largerInputArb: fc.Arbitrary<PreferredAllocationInput> = fc
  .record({
    localities: fc.array(localityArb, { minLength: 1, maxLength: 40 }),
    must: fc.uniqueArray(fc.nat(39), { maxLength: 4 }),
    absent: fc.uniqueArray(fc.nat(39), { maxLength: 10 }),
    size: fc.integer({ min: 0, max: 42 }),
    distances: distanceArb,
  })
  .map(({ localities, must, absent, size, distances }) => {
    const ids = localities.map((_, i) => `dev-${i}`);
    const locality = new Map<string, DeviceLocality>();
    localities.forEach((l, i) => l && locality.set(ids[i] as string, l));
    const mustInclude = must.filter((i) => i < ids.length).map((i) => ids[i] as string);
    const available = ids.filter((id, i) => !absent.includes(i) || mustInclude.includes(id));
    return { available, mustInclude, size, locality, ...(distances ? { distances } : {}) };
  });

describe('choosePreferredAllocation: properties', () => {
  it('costs exactly what the previous algorithm (the reference) chooses costs, and is a valid answer', () => {
    fc.assert(
      fc.property(fc.oneof(inputArb, largerInputArb), (input) => {
        const chosen = choosePreferredAllocation(input);
        const reference = referencePreferredAllocation(input);
        const allowed = new Set([...input.available, ...input.mustInclude]);
        expect(chosen).toHaveLength(expectedSize(input));
        expect(new Set(chosen).size).toBe(chosen.length);
        for (const id of chosen) expect(allowed.has(id)).toBe(true);
        for (const id of input.mustInclude) expect(chosen).toContain(id);
        expect(
          compareAllocationCost(
            allocationCost(chosen, input.locality, input.distances),
            allocationCost(reference, input.locality, input.distances),
          ),
        ).toBe(0);
      }),
      { numRuns: 1000 },
    );
  });

  it('equals the brute-force optimum of the same cost order on random small cases', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const chosen = choosePreferredAllocation(input);
        const optimum = bruteForceOptimum(input, expectedSize(input));
        const cost = allocationCost(chosen, input.locality, input.distances);
        expect(compareAllocationCost(cost, optimum)).toBe(0);
      }),
      { numRuns: 400 },
    );
  });

  it('returns exactly the wanted number of distinct IDs, only available or must-include ones, all must-include ones', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const chosen = choosePreferredAllocation(input);
        const allowed = new Set([...input.available, ...input.mustInclude]);
        expect(new Set(chosen).size).toBe(chosen.length);
        expect(chosen).toHaveLength(expectedSize(input));
        for (const id of chosen) expect(allowed.has(id)).toBe(true);
        for (const id of input.mustInclude) expect(chosen).toContain(id);
      }),
      { numRuns: 400 },
    );
  });

  it('is deterministic: the order of the input lists and of the locality map does not change the answer', () => {
    fc.assert(
      fc.property(inputArb, fc.integer(), (input, seed) => {
        const shuffle = <T>(items: readonly T[]): T[] =>
          items
            .map((item, i) => ({ item, k: (Math.imul(i + 1, 2654435761) ^ seed) >>> 0 }))
            .sort((a, b) => a.k - b.k)
            .map(({ item }) => item);
        const reordered: PreferredAllocationInput = {
          ...input,
          available: shuffle(input.available),
          mustInclude: shuffle(input.mustInclude),
          locality: new Map(shuffle([...input.locality])),
        };
        expect(choosePreferredAllocation(reordered)).toEqual(choosePreferredAllocation(input));
      }),
      { numRuns: 200 },
    );
  });
});

describe('choosePreferredAllocation: examples', () => {
  // Two sockets; each has one root port with a switch holding two GPUs, and a GPU on its own root port.
  const locality = new Map<string, DeviceLocality>([
    ['gpu0', { numaNodes: [0], pciePath: ['0000:00:01.0', '0000:01:00.0', '0000:02:08.0'] }],
    ['gpu1', { numaNodes: [0], pciePath: ['0000:00:01.0', '0000:01:00.0', '0000:02:10.0'] }],
    ['gpu2', { numaNodes: [0], pciePath: ['0000:00:03.0'] }],
    ['gpu3', { numaNodes: [1], pciePath: ['0000:80:01.0', '0000:81:00.0', '0000:82:08.0'] }],
    ['gpu4', { numaNodes: [1], pciePath: ['0000:80:01.0', '0000:81:00.0', '0000:82:10.0'] }],
    ['gpu5', { numaNodes: [1], pciePath: ['0000:80:03.0'] }],
  ]);
  const all = [...locality.keys()];

  it('takes two GPUs behind one switch rather than on two root ports', () => {
    expect(choosePreferredAllocation({ available: all, mustInclude: [], size: 2, locality })).toEqual([
      'gpu0',
      'gpu1',
    ]);
  });

  it('stays on the NUMA node of a must-include device', () => {
    expect(choosePreferredAllocation({ available: all, mustInclude: ['gpu5'], size: 2, locality })).toEqual([
      'gpu3',
      'gpu5',
    ]);
  });

  it('keeps to one NUMA node even when the devices there sit on different root ports', () => {
    const available = ['gpu0', 'gpu2', 'gpu3'];
    expect(choosePreferredAllocation({ available, mustInclude: [], size: 2, locality })).toEqual([
      'gpu0',
      'gpu2',
    ]);
  });

  it('takes devices of unknown locality last', () => {
    const available = ['gpu0', 'gpu3', 'x-unknown', 'y-unknown'];
    expect(choosePreferredAllocation({ available, mustInclude: [], size: 2, locality })).toEqual([
      'gpu0',
      'gpu3',
    ]);
    expect(choosePreferredAllocation({ available, mustInclude: [], size: 3, locality })).toEqual([
      'gpu0',
      'gpu3',
      'x-unknown',
    ]);
  });

  it('spans the two closest NUMA nodes when one is not enough', () => {
    const four = new Map<string, DeviceLocality>([0, 1, 2, 3].map((n) => [`d${n}`, { numaNodes: [n] }]));
    const distances = new Map([
      [
        0,
        new Map([
          [0, 10],
          [1, 32],
          [2, 21],
          [3, 32],
        ]),
      ],
      [
        1,
        new Map([
          [0, 32],
          [1, 10],
          [2, 32],
          [3, 21],
        ]),
      ],
      [
        2,
        new Map([
          [0, 21],
          [1, 32],
          [2, 10],
          [3, 32],
        ]),
      ],
      [
        3,
        new Map([
          [0, 32],
          [1, 21],
          [2, 32],
          [3, 10],
        ]),
      ],
    ]);
    const input = { available: [...four.keys()], mustInclude: ['d1'], size: 2, locality: four, distances };
    expect(choosePreferredAllocation(input)).toEqual(['d1', 'd3']);
  });

  it('answers [] for size 0, everything for size = available, and keeps IDs it knows no locality of', () => {
    expect(choosePreferredAllocation({ available: all, mustInclude: [], size: 0, locality })).toEqual([]);
    expect(choosePreferredAllocation({ available: all, mustInclude: [], size: -3, locality })).toEqual([]);
    expect(choosePreferredAllocation({ available: all, mustInclude: [], size: 6, locality })).toEqual(all);
    expect(choosePreferredAllocation({ available: all, mustInclude: [], size: 2.9, locality })).toEqual([
      'gpu0',
      'gpu1',
    ]);
    // A must-include ID missing from available and from the locality map is still answered.
    expect(choosePreferredAllocation({ available: all, mustInclude: ['ghost'], size: 2, locality })).toEqual([
      'ghost',
      'gpu0',
    ]);
    // Duplicates and non-strings in the lists count once or not at all.
    const messy = ['gpu3', 'gpu3', 'gpu4', 7, 'gpu4'] as unknown as string[];
    expect(choosePreferredAllocation({ available: messy, mustInclude: [], size: 5, locality })).toEqual([
      'gpu3',
      'gpu4',
    ]);
  });

  it('answers what it can: all devices when fewer are available, the must-include ones when size is smaller', () => {
    expect(choosePreferredAllocation({ available: ['gpu0'], mustInclude: [], size: 4, locality })).toEqual([
      'gpu0',
    ]);
    expect(
      choosePreferredAllocation({ available: all, mustInclude: ['gpu2', 'gpu5'], size: 1, locality }),
    ).toEqual(['gpu2', 'gpu5']);
    expect(
      choosePreferredAllocation({ available: all, mustInclude: [], size: Number.NaN, locality }),
    ).toEqual([]);
  });
});
