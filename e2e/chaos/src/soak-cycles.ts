/** Why a soak stopped: every cycle ran, the time bound, or a cycle after which the node could not be repaired. */
export type SoakStop = 'count' | 'time' | 'failure';

/**
 * Runs `run` for each kind of `schedule` in turn (cycle 1, 2, …) until one returns false or `maxMs` since
 * `started` passed before a cycle; resolves with why it stopped.
 */
export async function runSoakCycles<K>(
  schedule: readonly K[],
  options: { readonly started: number; readonly maxMs: number },
  run: (kind: K, cycle: number) => Promise<boolean>,
): Promise<SoakStop> {
  let cycle = 0;
  for (const kind of schedule) {
    if (performance.now() - options.started > options.maxMs) return 'time';
    cycle += 1;
    if (!(await run(kind, cycle))) return 'failure';
  }
  return 'count';
}
