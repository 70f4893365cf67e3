import { runSoakCycles, runSoakSession } from './soak-cycles';

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

describe('runSoakSession', () => {
  const session = (log: string[], setup: () => Promise<void> = async () => undefined) => ({
    schedule: ['a', 'b'],
    started: performance.now(),
    maxMs: 60_000,
    setup,
    cycle: async (kind: string) => {
      log.push(`cycle ${kind}`);
      return true;
    },
    takeProcess: () => {
      log.push('take');
      return undefined;
    },
    teardown: async () => {
      log.push('teardown');
    },
  });

  it('runs the cycles, then takes the process and tears down', async () => {
    const log: string[] = [];
    await expect(runSoakSession(session(log))).resolves.toEqual({ stoppedBy: 'count', finalExit: undefined });
    expect(log).toEqual(['cycle a', 'cycle b', 'take', 'teardown']);
  });

  it('tears down after a failed setup and rethrows', async () => {
    const log: string[] = [];
    const failing = session(log, async () => {
      throw new Error('no node');
    });
    await expect(runSoakSession(failing)).rejects.toThrow('no node');
    expect(log).toEqual(['take', 'teardown']);
  });
});
