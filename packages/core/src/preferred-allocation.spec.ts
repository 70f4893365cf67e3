import fc from 'fast-check';
import { createPushSource } from './device-source';
import { createDeviceStore } from './device-store';
import { enforcePreferredAllocation, preferredAllocation } from './preferred-allocation';
import type { ResourceDeclaration } from './resource-declaration';
import { topologyPreferredAllocation } from './topology-preferred-allocation';

describe('enforcePreferredAllocation', () => {
  it('puts must-include first, keeps only allowed IDs, fills to size from available', () => {
    expect(enforcePreferredAllocation(['z', 'c', 'c'], ['a', 'b', 'c', 'd'], ['b'], 3)).toEqual([
      'b',
      'c',
      'a',
    ]);
  });

  it('always honours the contract', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 3 })),
        fc.uniqueArray(fc.string({ maxLength: 3 })),
        fc.integer({ min: -5, max: 20 }),
        (answer, available, size) => {
          const mustInclude = available.slice(0, 2);
          const result = enforcePreferredAllocation(answer, available, mustInclude, size);
          const expected = Math.max(0, Math.min(size, new Set(available).size));
          return (
            result.length === expected &&
            new Set(result).size === result.length &&
            result.every((id) => available.includes(id)) &&
            mustInclude.slice(0, expected).every((id) => result.includes(id))
          );
        },
      ),
    );
  });
});

describe('preferredAllocation with the topology hook', () => {
  const store = createDeviceStore('example.com/gpu');
  store.set([
    { id: 'g0', health: 'Healthy', numaNodes: [0] },
    { id: 'g1', health: 'Healthy', numaNodes: [1] },
    { id: 'g2', health: 'Healthy', numaNodes: [0] },
    { id: 'g3', health: 'Healthy', numaNodes: [1] },
    { id: 'bad', health: 'Unhealthy', numaNodes: [1] },
  ]);
  const declaration: ResourceDeclaration = {
    name: 'example.com/gpu',
    source: createPushSource(),
    options: { getPreferredAllocationAvailable: true },
    preferredAllocation: topologyPreferredAllocation(),
  };

  it('keeps the set on the fewest NUMA nodes and never offers unhealthy or unknown IDs', async () => {
    const response = await preferredAllocation(declaration, store.devices(), {
      containerRequests: [
        {
          availableDeviceIDs: ['g0', 'g1', 'g2', 'g3', 'bad', 'ghost'],
          mustIncludeDeviceIDs: ['g1'],
          allocationSize: 2,
        },
      ],
    });
    expect(response.containerResponses[0]?.deviceIDs.sort()).toEqual(['g1', 'g3']);
  });
});
