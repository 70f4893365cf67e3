import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { bundleEntry } from '@kdp/kubelet-sim/testing';
import type { SysfsFixture } from '@kdp/topology/testing';

const bundle = join(__dirname, '..', 'dist', 'main.js');

/** The roots flags pointing at a fixture machine. */
export function fixtureRoots(fixture: SysfsFixture): string[] {
  return ['--sysfs-root', fixture.root, '--proc-root', fixture.procRoot, '--dev-root', fixture.devRoot];
}

/** Bundles src/main.ts into dist/main.js as the `build` target does (for specs that run the real binary). */
export function buildPluginBundle(): void {
  bundleEntry(join(__dirname, 'main.ts'), { outfile: bundle });
}

/** Starts `sriov-device-plugin serve` on a fixture; stderr (JSON logs) is handed to `onLog`. */
export function spawnServe(
  fixture: SysfsFixture,
  args: readonly string[],
  onLog?: (text: string) => void,
): ChildProcess {
  const child = spawn(process.execPath, [bundle, 'serve', ...fixtureRoots(fixture), ...args], {
    stdio: ['ignore', 'ignore', onLog ? 'pipe' : 'ignore'],
  });
  child.stderr?.on('data', (chunk: Buffer) => onLog?.(chunk.toString()));
  return child;
}

/** Sends `signal` to a running child and resolves once it exited (at once when it already has). */
export async function stopProcess(
  child: ChildProcess | undefined,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}
