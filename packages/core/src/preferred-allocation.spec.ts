import { status } from '@grpc/grpc-js';
import fc from 'fast-check';
import { MAX_CONTAINER_REQUESTS } from './allocate-containers';
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

  it('shows the hook each ID once and only known must-include IDs; unknown ones still come first', async () => {
    const seen: { available: string[]; mustInclude: readonly string[] }[] = [];
    const spying: ResourceDeclaration = {
      ...declaration,
      preferredAllocation: (context) => {
        seen.push({ available: context.available.map((d) => d.id), mustInclude: context.mustInclude });
        return ['g2'];
      },
    };
    const response = await preferredAllocation(spying, store.devices(), {
      containerRequests: [
        {
          availableDeviceIDs: ['g0', 'g2', 'g0', 'g2', 'ghost'],
          mustIncludeDeviceIDs: ['ghost', 'g0', 'ghost', 'g0'],
          allocationSize: 3,
        },
      ],
    });
    expect(seen).toEqual([{ available: ['g0', 'g2'], mustInclude: ['g0'] }]);
    expect(response.containerResponses[0]?.deviceIDs).toEqual(['ghost', 'g0', 'g2']);
  });

  it('rejects more container requests than Allocate serves with INVALID_ARGUMENT', async () => {
    const container = { availableDeviceIDs: ['g0', 'g2'], mustIncludeDeviceIDs: [], allocationSize: 1 };
    const request = (count: number) => ({
      containerRequests: Array.from({ length: count }, () => container),
    });
    const served = await preferredAllocation(declaration, store.devices(), request(MAX_CONTAINER_REQUESTS));
    expect(served.containerResponses).toHaveLength(MAX_CONTAINER_REQUESTS);
    await expect(
      preferredAllocation(declaration, store.devices(), request(MAX_CONTAINER_REQUESTS + 1)),
    ).rejects.toMatchObject({ code: status.INVALID_ARGUMENT, message: expect.stringMatching(/at most 256/) });
  });
});
