import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import type { SysfsFixture } from '@kdp/topology/testing';
import { bundleEntry } from '@kdp/kubelet-sim/testing';

/** The bundle `npx infiniband-device-plugin` runs, in a private temp dir. */
export interface PluginBundle {
  readonly path: string;
  remove(): void;
}

/**
 * Builds src/main.ts as project.json's build target does, into a private directory so that a parallel
 * `nx build` never swaps it underneath a running test.
 */
export function buildPluginBundle(): PluginBundle {
  return bundleEntry(join(__dirname, 'main.ts'));
}

/** A running `serve` and what it logged so far. */
export interface ServeProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<unknown[]>;
  stderr(): string;
  /** SIGKILLs it when still running (test cleanup). */
  kill(): Promise<void>;
}

/** Spawns `node <bundle> serve` on a fixture machine with the kubelet directory `dir`. */
export function spawnServe(
  bundle: PluginBundle,
  fixture: SysfsFixture,
  dir: string,
  extra: readonly string[] = [],
): ServeProcess {
  let stderr = '';
  const child = spawn(
    process.execPath,
    [
      bundle.path,
      'serve',
      '--sysfs-root',
      fixture.root,
      '--dev-root',
      fixture.devRoot,
      '--device-plugin-dir',
      dir,
      ...extra,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit');
  return {
    child,
    exited,
    stderr: () => stderr,
    kill: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}
