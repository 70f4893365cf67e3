import {
  createPlaygroundSession,
  type PlaygroundMachine,
  type PlaygroundSession,
  type PlaygroundSessionOptions,
} from './create-playground-session';
import { checkTwoRequestsPod, checkUnschedulablePod } from './playground-pod-checks';
import type { PlaygroundDriver } from './start-playground-driver';

export type { PlaygroundMachine } from './create-playground-session';

/** Options of {@link createPlaygroundDriverTest}. */
export interface PlaygroundDriverTestOptions extends PlaygroundSessionOptions {
  /** A CEL selector on a real attribute of the driver's devices that picks a device with device nodes. */
  readonly selector: string;
}

/** A driver's playground test: start and stop for `beforeAll`/`afterAll`, and its cases for `it.each`. */
export interface PlaygroundDriverTest extends Pick<PlaygroundSession, 'start' | 'stop'> {
  /** `[title, check]` of each case. */
  readonly cases: ReadonlyArray<readonly [string, () => Promise<void>]>;
  /** The started playground and driver, for a plugin's own cases; throws before {@link PlaygroundDriverTest.start}. */
  driver(): PlaygroundDriver;
}

/**
 * A plugin's DRA driver in the DRA playground, driven by real kubectl: a pod whose two containers name two
 * requests (one a `firstAvailable` list) runs with exactly each request's devices and env; a claim matching
 * nothing leaves its pod Pending with the scheduler's reason.
 */
export function createPlaygroundDriverTest(options: PlaygroundDriverTestOptions): PlaygroundDriverTest {
  const session = createPlaygroundSession(options);
  const started = session.started;
  const checkOptions = (m: PlaygroundMachine) => ({
    driver: options.driver,
    selector: options.selector,
    devRoot: m.devRoot,
  });
  return {
    start: () => session.start(),
    stop: () => session.stop(),
    driver: () => started().setup,
    cases: [
      [
        'runs a pod whose two containers name two requests, each with exactly its devices and env',
        async () => {
          const s = started();
          await checkTwoRequestsPod(s.setup, checkOptions(s.machine));
        },
      ],
      [
        'leaves a pod whose claim matches nothing Pending with the scheduler’s reason',
        async () => {
          const s = started();
          await checkUnschedulablePod(s.setup, checkOptions(s.machine));
        },
      ],
    ],
  };
}
