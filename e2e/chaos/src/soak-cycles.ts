import { stopSoakPlugin, type SoakExit, type SoakPlugin } from './soak-plugin';

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

/** What {@link runSoakSession} runs. */
export interface SoakSession<K> {
  readonly schedule: readonly K[];
  /** `performance.now()` at the start; no cycle begins once `maxMs` have passed since. */
  readonly started: number;
  readonly maxMs: number;
  /** Starts the node and the process, and waits until it is ready. */
  setup(): Promise<void>;
  /** One cycle of `kind`: false when the node could not be repaired after it. */
  cycle(kind: K, n: number): Promise<boolean>;
  /** The process alive at the end, which the caller forgets: it is ended with SIGTERM. */
  takeProcess(): SoakPlugin | undefined;
  /** Closes the kubelet and removes the node, after the process ended (also after a failed setup). */
  teardown(): Promise<void>;
}

/** A soak from start to end: setup, the cycles, then always the final SIGTERM and the teardown. */
export async function runSoakSession<K>(
  session: SoakSession<K>,
): Promise<{ stoppedBy: SoakStop; finalExit: SoakExit | undefined }> {
  let stoppedBy: SoakStop = 'count';
  let finalExit: SoakExit | undefined;
  try {
    await session.setup();
    stoppedBy = await runSoakCycles(session.schedule, session, (kind, n) => session.cycle(kind, n));
  } finally {
    const last = session.takeProcess();
    if (last !== undefined) finalExit = await stopSoakPlugin(last);
    await session.teardown();
  }
  return { stoppedBy, finalExit };
}
