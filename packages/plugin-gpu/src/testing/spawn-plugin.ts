import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { bundleEntry } from '@kdp/kubelet-sim/testing';

/** The bundle the `gpu-device-plugin` binary runs. */
export const BUNDLE = join(__dirname, '..', '..', 'dist', 'main.js');

/** Bundles src/main.ts into dist/main.js exactly as the `build` target does (koffi stays external). */
export function buildBundle(): void {
  bundleEntry(join(__dirname, '..', 'main.ts'), { outfile: BUNDLE, external: ['koffi'] });
}

/** A running `gpu-device-plugin serve`, with its stderr collected. */
export interface SpawnedPlugin {
  readonly child: ChildProcess;
  stderr(): string;
  /** Resolves with the exit code (null when a signal ended it) once the process has exited. */
  readonly exited: Promise<number | null>;
  /** SIGTERM (if still running) and wait for the exit code. */
  stop(): Promise<number | null>;
}

/** Spawns `node dist/main.js <args>`. */
export function spawnPlugin(args: readonly string[]): SpawnedPlugin {
  const child = spawn(process.execPath, [BUNDLE, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return {
    child,
    stderr: () => stderr,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
