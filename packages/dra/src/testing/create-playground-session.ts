import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnyPluginDefinition, MultiPluginProgram } from '@kdp/core/plugin';
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

/** Options of {@link createPlaygroundSession}. */
export interface PlaygroundSessionOptions {
  /** The plugin run in this process as `serve --mode dra`. */
  readonly plugin: AnyPluginDefinition | MultiPluginProgram;
  /** Its DRA driver name. */
  readonly driver: string;
  /** Builds the fixture machine in `dir` (a temporary directory the session removes). */
  machine(dir: string): PlaygroundMachine;
}

/** A driver in the DRA playground for one test file: start and stop for `beforeAll`/`afterAll`. */
export interface PlaygroundSession {
  /** Builds the machine and starts the playground with the driver on its second node. */
  start(): Promise<void>;
  /** Stops the driver and the playground, removes the machine and the directory. */
  stop(): Promise<void>;
  /** The started driver and machine; throws before `start`. */
  started(): { readonly setup: PlaygroundDriver; readonly machine: PlaygroundMachine };
}

/** A plugin's DRA driver in a two-node DRA playground on a fixture machine, in a temporary directory. */
export function createPlaygroundSession(options: PlaygroundSessionOptions): PlaygroundSession {
  let dir: string | undefined;
  let machine: PlaygroundMachine | undefined;
  let setup: PlaygroundDriver | undefined;
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
    started() {
      if (setup === undefined || machine === undefined) throw new Error('the playground did not start');
      return { setup, machine };
    },
  };
}
