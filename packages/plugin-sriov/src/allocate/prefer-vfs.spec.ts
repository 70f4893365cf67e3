import fc from 'fast-check';
import { preferVfs, type VfPlacement } from './prefer-vfs';

/** `count` VFs of PF `pf` on NUMA node `numaNode`, behind root port `port`. */
const vfs = (pf: string, numaNode: number, count: number, port = `rp-${numaNode}`): VfPlacement[] =>
  Array.from({ length: count }, (_, index) => ({
    id: `${pf}-${index}`,
    pf,
    numaNode,
    index,
    pciePath: [port],
  }));

describe('preferVfs', () => {
  const available = [...vfs('a', 0, 3), ...vfs('b', 0, 2), ...vfs('c', 1, 4)];

  it('stays on one NUMA node when the request fits there, and on one PF when it fits one', () => {
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

  it('packs onto one PF, even when another PF behind the same port has room, or spreads round-robin', () => {
    const two = [...vfs('x', 0, 2), ...vfs('y', 0, 3)];
    expect(preferVfs({ available: two, mustInclude: [], size: 3, policy: 'pack' })).toEqual([
      'y-0',
      'y-1',
      'y-2',
    ]);
    expect(preferVfs({ available: two, mustInclude: [], size: 2, policy: 'pack' })).toEqual(['x-0', 'x-1']);
    expect(
      preferVfs({ available: available.slice(0, 5), mustInclude: [], size: 3, policy: 'spread' }),
    ).toEqual(['a-0', 'b-0', 'a-1']);
  });

  it('prefers the closer root port after the NUMA node', () => {
    const ports = [...vfs('p', 0, 1, 'rp-near'), ...vfs('q', 0, 1, 'rp-far'), ...vfs('r', 0, 1, 'rp-near')];
    expect(preferVfs({ available: ports, mustInclude: ['p-0'], size: 2, policy: 'pack' })).toEqual([
      'p-0',
      'r-0',
    ]);
  });

  it('keeps must-include IDs and prefers their node and PF (pack), or other PFs of that node (spread)', () => {
    expect(preferVfs({ available, mustInclude: ['b-1'], size: 2, policy: 'pack' })).toEqual(['b-0', 'b-1']);
    expect(preferVfs({ available, mustInclude: ['b-1'], size: 2, policy: 'spread' })).toEqual(['b-1', 'a-0']);
    expect(preferVfs({ available, mustInclude: ['c-3'], size: 3, policy: 'spread' })).toEqual([
      'c-3',
      'c-0',
      'c-1',
    ]);
  });

  it('crosses NUMA nodes only when it must and never leaves out a must-include ID', () => {
    const all = preferVfs({ available, mustInclude: [], size: 20, policy: 'pack' });
    expect(all).toHaveLength(9);
    expect(new Set(all).size).toBe(9);
    const six = preferVfs({ available, mustInclude: [], size: 6, policy: 'spread' });
    expect(six).toHaveLength(6);
    expect(new Set(six.map((id) => id[0])).size).toBe(3);
    expect(preferVfs({ available, mustInclude: ['a-0', 'c-0'], size: 1, policy: 'pack' })).toEqual([
      'a-0',
      'c-0',
    ]);
  });

  it('treats VFs without a NUMA node (excludeTopology) as one group, still packed by PF', () => {
    const unknown = available.map(({ numaNode: _numaNode, ...vf }) => vf);
    expect(preferVfs({ available: unknown, mustInclude: [], size: 4, policy: 'pack' })).toEqual([
      'c-0',
      'c-1',
      'c-2',
      'c-3',
    ]);
  });
});

describe('preferVfs: properties', () => {
  const poolArb = fc
    .array(
      fc.record({ pf: fc.constantFrom('a', 'b', 'c', 'd'), node: fc.option(fc.nat(2), { nil: undefined }) }),
      {
        minLength: 1,
        maxLength: 30,
      },
    )
    .map((vfs) =>
      vfs.map(({ pf, node }, index) => ({
        id: `${pf}-${index}`,
        pf,
        index,
        pciePath: [`rp-${pf < 'c' ? 0 : 1}`],
        ...(node !== undefined ? { numaNode: node } : {}),
      })),
    );

  it('answers exactly the wanted number of distinct available VFs with every must-include one, both policies', () => {
    fc.assert(
      fc.property(poolArb, fc.nat(35), fc.array(fc.nat(29), { maxLength: 3 }), (available, size, mustAt) => {
        const ids = available.map((vf) => vf.id);
        const mustInclude = [...new Set(mustAt.filter((i) => i < ids.length).map((i) => ids[i] as string))];
        for (const policy of ['pack', 'spread'] as const) {
          const chosen = preferVfs({ available, mustInclude, size, policy });
          expect(chosen).toHaveLength(Math.max(mustInclude.length, Math.min(size, ids.length)));
          expect(new Set(chosen).size).toBe(chosen.length);
          for (const id of chosen) expect(ids).toContain(id);
          for (const id of mustInclude) expect(chosen).toContain(id);
        }
      }),
      { numRuns: 300 },
    );
  });
});
