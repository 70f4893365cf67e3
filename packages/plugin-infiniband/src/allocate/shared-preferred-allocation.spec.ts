import type { PluginDevice } from '@kdp/core';
import { createSharedPreferredAllocation, type SharedLocalityPayload } from './shared-preferred-allocation';

/** A shared ID as planResources advertises it: numaNodes empty when its HCAs span nodes, locality in the payload. */
const id = (
  name: string,
  numaNodes: number[],
  pciePath: string[] = [],
): PluginDevice<SharedLocalityPayload> => ({
  id: name,
  health: 'Healthy',
  numaNodes: [],
  payload: { locality: { numaNodes, pciePath } },
});

describe('createSharedPreferredAllocation', () => {
  const choose = createSharedPreferredAllocation<SharedLocalityPayload>();

  it('prefers IDs whose HCAs are on the NUMA node of the must-include IDs, from the payload', () => {
    // Without the payload's locality every ID is of unknown locality and the lowest IDs ("a", "b") would win.
    const available = [id('a', [0, 1]), id('b', [1]), id('c', [0]), id('d', [0]), id('e', [1])];
    expect(choose({ resource: 'rdma/x', available, mustInclude: ['d'], size: 2 })).toEqual(['c', 'd']);
    expect(choose({ resource: 'rdma/x', available, mustInclude: ['e'], size: 2 })).toEqual(['b', 'e']);
  });

  it('prefers IDs whose HCAs span the fewest NUMA nodes, then share a PCIe switch', () => {
    const available = [
      id('0', [0, 1]),
      id('1', [0, 1]),
      id('2', [1], ['0000:80:01.0', '0000:81:00.0']),
      id('3', [1], ['0000:80:03.0']),
      id('4', [1], ['0000:80:01.0', '0000:81:00.0']),
    ];
    expect(choose({ resource: 'rdma/x', available, mustInclude: [], size: 2 })).toEqual(['2', '4']);
  });

  it('answers at once for 100,000 interchangeable IDs (only `size` of each locality reach the chooser)', () => {
    // Untrimmed, the chooser's cost grows with the square of the candidates: minutes for this list.
    const available = Array.from({ length: 100_000 }, (_, n) => id(String(n), [0, 1]));
    const chosen = choose({ resource: 'rdma/x', available, mustInclude: ['99999', '5000'], size: 3 });
    expect(chosen).toHaveLength(3);
    expect(chosen).toEqual(expect.arrayContaining(['99999', '5000']));
  }, 5_000);

  it('never answers with fewer than the must-include IDs, nor with IDs it was not offered', () => {
    const available = [id('0', [0]), id('1', [0]), id('2', [1])];
    const chosen = choose({ resource: 'rdma/x', available, mustInclude: ['2', '1'], size: 1 });
    expect([...chosen].sort()).toEqual(['1', '2']);
    const three = choose({ resource: 'rdma/x', available, mustInclude: [], size: 3 });
    expect([...three].sort()).toEqual(['0', '1', '2']);
  });
});
