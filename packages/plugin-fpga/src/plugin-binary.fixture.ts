import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { bundleEntry } from '@kdp/kubelet-sim/testing';

/** Bundles src/main.ts as the `build` target does, into a private temp dir; returns the bundle path and cleanup. */
export function buildPluginBundle(): { bundle: string; remove: () => void } {
  const built = bundleEntry(join(__dirname, 'main.ts'));
  return { bundle: built.path, remove: built.remove };
}

/** A running `fpga-device-plugin serve` process with its stderr collected. */
export interface ServeProcess {
  readonly child: ChildProcess;
  stderr(): string;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
}

/** The roots and files `serve` is pointed at. */
export interface ServeArgs {
  readonly sysfsRoot: string;
  readonly devRoot: string;
  readonly devicePluginDir: string;
  readonly config: string;
}

/** Spawns `node <bundle> serve` with the fixture's roots, the kubelet directory and the config file. */
export function spawnServe(bundle: string, args: ServeArgs): ServeProcess {
  const argv = [
    ...['--sysfs-root', args.sysfsRoot, '--dev-root', args.devRoot],
    ...['--device-plugin-dir', args.devicePluginDir, '--config', args.config],
  ];
  const child = spawn(process.execPath, [bundle, 'serve', ...argv], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return {
    child,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode !== null) return child.exitCode;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}
