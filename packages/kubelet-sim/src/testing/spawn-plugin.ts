import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** A plugin binary running as a child process, with its output collected. */
export interface PluginProcess {
  readonly child: ChildProcess;
  /** Resolves with `[exit code, signal]` once it exited. */
  readonly exited: Promise<[number | null, NodeJS.Signals | null]>;
  stdout(): string;
  stderr(): string;
  /** SIGTERM (if still running), then `[exit code, signal]`. */
  stop(): Promise<[number | null, NodeJS.Signals | null]>;
  /** SIGKILL if still running (test cleanup). */
  kill(): Promise<void>;
}

/**
 * Spawns `node <bundle> <args>` (a bundle from `bundleEntry`, or a package's dist/main.js), with `node` the Node
 * binary (default the one running this process; a bench passes `benchNode().path`).
 */
export function spawnPlugin(
  bundle: string,
  args: readonly string[],
  env?: NodeJS.ProcessEnv,
  node: string = process.execPath,
): PluginProcess {
  const child = spawn(node, [bundle, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(env !== undefined ? { env } : {}),
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const running = (): boolean => child.exitCode === null && child.signalCode === null;
  return {
    child,
    exited,
    stdout: () => stdout,
    stderr: () => stderr,
    stop: async () => {
      if (running()) child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      if (!running()) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}
