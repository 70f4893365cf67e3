import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnyPluginDefinition, MultiPluginProgram } from '@kdp/core/plugin';
import { checkTwoRequestsPod, checkUnschedulablePod } from './playground-pod-checks';
import { startPlaygroundDriver, type PlaygroundDriver } from './start-playground-driver';

/** A fixture machine for a driver: its flags, its /dev and how to remove it. */
export interface PlaygroundMachine {
  /** The plugin's own flags: its roots, `--config`, `--poll-interval`, … */
  readonly flags: readonly string[];
  /** The fixture's /dev. */
  readonly devRoot: string;
  /** The plugin's `--proc-root` when `flags` give one. */
  readonly procRoot?: string | undefined;
  /** Removes the fixture. */
  remove(): void;
}

/** Options of {@link createPlaygroundDriverTest}. */
export interface PlaygroundDriverTestOptions {
  /** The plugin run in this process as `serve --mode dra`. */
  readonly plugin: AnyPluginDefinition | MultiPluginProgram;
  /** Its DRA driver name. */
  readonly driver: string;
  /** A CEL selector on a real attribute of the driver's devices that picks a device with device nodes. */
  readonly selector: string;
  /** Builds the fixture machine in `dir` (a temporary directory the test removes). */
  machine(dir: string): PlaygroundMachine;
}

/** A driver's playground test: start and stop for `beforeAll`/`afterAll`, and its cases for `it.each`. */
export interface PlaygroundDriverTest {
  /** Builds the machine and starts the playground with the driver on its second node. */
  start(): Promise<void>;
  /** Stops the driver and the playground, removes the machine and the directory. */
  stop(): Promise<void>;
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
  let dir: string | undefined;
  let machine: PlaygroundMachine | undefined;
  let setup: PlaygroundDriver | undefined;
  const started = (): { setup: PlaygroundDriver; machine: PlaygroundMachine } => {
    if (setup === undefined || machine === undefined) throw new Error('the playground did not start');
    return { setup, machine };
  };
  const checkOptions = (m: PlaygroundMachine) => ({
    driver: options.driver,
    selector: options.selector,
    devRoot: m.devRoot,
  });
  return {
    async start() {
      dir = mkdtempSync(join(tmpdir(), 'kdp-playground-'));
      machine = options.machine(dir);
      setup = await startPlaygroundDriver({
        plugin: options.plugin,
        driver: options.driver,
        dir: join(dir, 'node'),
        flags: machine.flags,
        devRoot: machine.devRoot,
        procRoot: machine.procRoot,
      });
    },
    async stop() {
      await setup?.stop();
      machine?.remove();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    },
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
