import { preferVfs, type VfPlacement } from './prefer-vfs';

const vfs = (pf: string, numaNode: number, count: number): VfPlacement[] =>
  Array.from({ length: count }, (_, index) => ({ id: `${pf}-${index}`, pf, numaNode, index }));

describe('preferVfs', () => {
  const available = [...vfs('a', 0, 3), ...vfs('b', 0, 2), ...vfs('c', 1, 4)];

  it('stays on one NUMA node when the request fits there, preferring the node that fits', () => {
    expect(preferVfs({ available, mustInclude: [], size: 4, policy: 'pack' })).toEqual([
      'c-0',
      'c-1',
      'c-2',
      'c-3',
    ]);
    expect(preferVfs({ available, mustInclude: [], size: 5, policy: 'pack' })).toEqual([
      'a-0',
      'a-1',
      'a-2',
      'b-0',
      'b-1',
    ]);
  });

  it('packs onto the fullest PF or spreads round-robin over PFs, as configured', () => {
    expect(preferVfs({ available, mustInclude: [], size: 3, policy: 'pack' })).toEqual(['c-0', 'c-1', 'c-2']);
    expect(preferVfs({ available: available.slice(0, 5), mustInclude: [], size: 3, policy: 'pack' })).toEqual(
      ['a-0', 'a-1', 'a-2'],
    );
    expect(
      preferVfs({ available: available.slice(0, 5), mustInclude: [], size: 3, policy: 'spread' }),
    ).toEqual(['a-0', 'b-0', 'a-1']);
  });

  it('keeps must-include IDs and prefers their node and PF', () => {
    expect(preferVfs({ available, mustInclude: ['b-1'], size: 2, policy: 'pack' })).toEqual(['b-1', 'b-0']);
    expect(preferVfs({ available, mustInclude: ['b-1'], size: 2, policy: 'spread' })).toEqual(['b-1', 'a-0']);
  });

  it('crosses NUMA nodes only when it must and never returns more than asked', () => {
    const all = preferVfs({ available, mustInclude: [], size: 20, policy: 'pack' });
    expect(all).toHaveLength(9);
    expect(new Set(all).size).toBe(9);
    expect(preferVfs({ available, mustInclude: ['a-0', 'c-0'], size: 1, policy: 'pack' })).toEqual(['a-0']);
  });
});
