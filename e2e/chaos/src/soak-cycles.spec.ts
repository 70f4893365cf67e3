import { runSoakCycles } from './soak-cycles';

describe('runSoakCycles', () => {
  const forever = { started: performance.now(), maxMs: 60_000 };

  it('runs every kind in order, numbering the cycles', async () => {
    const seen: string[] = [];
    await expect(
      runSoakCycles(['a', 'b', 'c'], forever, async (kind, cycle) => {
        seen.push(`${cycle}${kind}`);
        return true;
      }),
    ).resolves.toBe('count');
    expect(seen).toEqual(['1a', '2b', '3c']);
  });

  it('stops after a failed cycle, and before a cycle once the time is up', async () => {
    const seen: number[] = [];
    const run = async (_: string, cycle: number): Promise<boolean> => {
      seen.push(cycle);
      return cycle < 2;
    };
    await expect(runSoakCycles(['a', 'b', 'c'], forever, run)).resolves.toBe('failure');
    expect(seen).toEqual([1, 2]);
    await expect(runSoakCycles(['a'], { started: performance.now() - 10, maxMs: 1 }, run)).resolves.toBe(
      'time',
    );
    expect(seen).toEqual([1, 2]);
  });
});
