import { Healthy, type Device } from '@kdp/api';
import fc from 'fast-check';
import { chooseDevices, groupByAffinity, isTopologyAware } from './device-choice';

const dev = (ID: string, nodes: number[]): Device => ({
  ID,
  health: Healthy,
  topology: nodes.length === 0 ? undefined : { nodes: nodes.map((n) => ({ ID: n })) },
});

describe('groupByAffinity (P-32, P-34)', () => {
  const devices = [
    dev('a0', [0]),
    dev('b0', [0]),
    dev('c1', [1]),
    dev('d2', [2]),
    dev('e2', [2]),
    dev('f', []),
  ];
  const all = new Set(devices.map((d) => d.ID));

  it('puts affinity nodes first, then other nodes with fewer devices first, then no topology', () => {
    expect(groupByAffinity(devices, all, [2])).toEqual({
      aligned: ['d2', 'e2'],
      unaligned: ['c1', 'a0', 'b0'],
      noAffinity: ['f'],
    });
  });

  it('without topology every candidate has no affinity', () => {
    const flat = [dev('x', []), dev('y', [])];
    expect(isTopologyAware(flat)).toBe(false);
    expect(groupByAffinity(flat, new Set(['y', 'x']), [0])).toEqual({
      aligned: [],
      unaligned: [],
      noAffinity: ['x', 'y'],
    });
  });

  it('lists a device on several nodes once', () => {
    const multi = [dev('m', [0, 1]), dev('n', [1])];
    const groups = groupByAffinity(multi, new Set(['m', 'n']), [1]);
    expect([...groups.aligned, ...groups.unaligned, ...groups.noAffinity].sort()).toEqual(['m', 'n']);
  });

  it('returns exactly the candidates, each once', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.constantFrom('a', 'b', 'c', 'd', 'e'),
            fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 2 }),
          ),
        ),
        fc.subarray(['a', 'b', 'c', 'd', 'e']),
        fc.option(fc.array(fc.integer({ min: 0, max: 3 }))),
        (raw, candidates, affinity) => {
          const list = raw.map(([id, nodes]) => dev(id, nodes));
          const known = new Set(list.map((d) => d.ID));
          const wanted = new Set(candidates.filter((c) => known.has(c)));
          const g = groupByAffinity(list, wanted, affinity ?? undefined);
          const out = [...g.aligned, ...g.unaligned, ...g.noAffinity];
          expect(new Set(out).size).toBe(out.length);
          expect(out.sort()).toEqual([...wanted].sort());
        },
      ),
    );
  });
});

describe('chooseDevices (P-26, P-34)', () => {
  const devices = [dev('a0', [0]), dev('b0', [0]), dev('c1', [1]), dev('d1', [1]), dev('f', [])];
  const available = new Set(devices.map((d) => d.ID));

  it('asks the plugin about every candidate, ignores IDs it does not know and fills the shortfall', async () => {
    const calls: Array<[string[], string[]]> = [];
    const chosen = await chooseDevices({
      devices,
      available,
      count: 3,
      affinity: undefined,
      preferred: async (pool, mustInclude) => {
        calls.push([pool, mustInclude]);
        return ['d1', 'nope'];
      },
    });
    expect(calls).toEqual([[['a0', 'b0', 'c1', 'd1', 'f'], []]]);
    expect(chosen).toEqual(['d1', 'a0', 'b0']);
  });

  it('with more aligned devices than needed asks only about the aligned ones', async () => {
    const pools: string[][] = [];
    const chosen = await chooseDevices({
      devices,
      available,
      count: 1,
      affinity: [1],
      preferred: async (pool) => {
        pools.push(pool);
        return ['d1'];
      },
    });
    expect(pools).toEqual([['c1', 'd1']]);
    expect(chosen).toEqual(['d1']);
  });

  it('takes every aligned device first and offers the rest with them as must_include', async () => {
    const calls: Array<[string[], string[]]> = [];
    const chosen = await chooseDevices({
      devices,
      available,
      count: 3,
      affinity: [1],
      preferred: async (pool, mustInclude) => {
        calls.push([pool, mustInclude]);
        return [...mustInclude, 'f'];
      },
    });
    expect(calls).toEqual([
      [
        ['c1', 'd1', 'a0', 'b0', 'f'],
        ['c1', 'd1'],
      ],
    ]);
    expect(chosen).toEqual(['c1', 'd1', 'f']);
  });
});
