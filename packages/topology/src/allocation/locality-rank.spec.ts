import { cleanNumaNodes, cleanPciePath, rankLocality } from './locality-rank';

describe('rankLocality', () => {
  const sw = ['0000:00:01.0', '0000:01:00.0'];
  it('ranks by shared bridges within one NUMA affinity', () => {
    expect(
      rankLocality({ numaNodes: [0], pciePath: [...sw, 'a'] }, { numaNodes: [0], pciePath: [...sw, 'b'] }),
    ).toBe('same-switch');
    expect(
      rankLocality({ numaNodes: [0], pciePath: ['r', 'x'] }, { numaNodes: [0], pciePath: ['r', 'y'] }),
    ).toBe('same-root-port');
    expect(rankLocality({ numaNodes: [0], pciePath: ['r'] }, { numaNodes: [0], pciePath: ['s'] })).toBe(
      'same-numa-node',
    );
    expect(rankLocality({ numaNodes: [0], pciePath: sw }, { numaNodes: [1], pciePath: sw })).toBe(
      'other-numa-node',
    );
  });

  it('treats missing or invalid NUMA information as unknown, where only shared bridges still count', () => {
    expect(rankLocality(undefined, { numaNodes: [0] })).toBe('unknown');
    expect(rankLocality({ numaNodes: [-1] }, { numaNodes: [] })).toBe('unknown');
    expect(rankLocality({ numaNodes: [], pciePath: sw }, { numaNodes: [], pciePath: sw })).toBe(
      'same-switch',
    );
    expect(cleanNumaNodes({ numaNodes: [3, 1, 3, -1, 1.5] })).toEqual([1, 3]);
    expect(cleanPciePath({ numaNodes: [], pciePath: ['a', '', 'b'] })).toEqual(['a']);
  });
});
