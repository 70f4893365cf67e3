import { EventEmitter } from 'node:events';
import type { Clock } from '@kdp/base';
import type { KubeApiAccess } from '../kube/kube-api-access';
import type { AnyPluginDefinition } from '../plugin/define-plugin';
import { runPlugin, runPlugins, type MultiPluginProgram } from '../plugin/run-plugin';
import type { ServeMode } from '../plugin/serve-mode';

/** A plugin binary running in this process, with its output captured and its signals under the test's control. */
export interface PluginRun {
  /** Resolves with the exit code. */
  readonly done: Promise<number>;
  /** What it wrote to stdout so far. */
  stdout(): string;
  /** What it wrote to stderr so far (JSON log lines and messages). */
  stderr(): string;
  /** The JSON log lines so far, parsed. */
  logs(): Array<Record<string, unknown>>;
  /** Delivers a signal to the run (never to the test process). */
  signal(name: 'SIGTERM' | 'SIGINT' | 'SIGHUP'): void;
  /** How many listeners the run holds for a signal (0 once it finished). */
  listeners(name: 'SIGTERM' | 'SIGINT' | 'SIGHUP'): number;
  /** Resolves with the first log line (so far or later) that `predicate` accepts; rejects after `timeoutMs`. */
  waitForLog(
    predicate: (line: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number>;
}

/** Options of {@link startPluginRun}. */
export interface StartPluginRunOptions {
  /** Quiet time before a changed configuration file is reloaded (default 20 ms here). */
  readonly configDebounceMs?: number;
  readonly clock?: Clock;
  /** The environment compat layers read (default: none, never the test process's). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Where compat layers' default configuration paths are looked up (default: a path that does not exist). */
  readonly anchorRoot?: string;
  /** The binary's name as invoked, an anchor's (`RunIo.invokedAs`): started as that anchor. */
  readonly invokedAs?: string;
  /** The API server for `--node-config-label`. */
  readonly kubeApi?: KubeApiAccess;
  /** How often node labels are read again (default here 50 ms). */
  readonly nodeLabelIntervalMs?: number;
  /** Serve modes besides device-plugin (`runPlugin`'s `modes`). */
  readonly modes?: Readonly<Record<string, ServeMode>>;
}

/** Runs a plugin definition (or several, as one multi-plugin binary) in this process with the given command line. */
export function startPluginRun(
  target: AnyPluginDefinition | MultiPluginProgram,
  argv: readonly string[],
  options: StartPluginRunOptions = {},
): PluginRun {
  let out = '';
  let err = '';
  const signals = new EventEmitter();
  const waiters = new Set<() => void>();
  const io = {
    argv,
    stdout: { write: (text: string) => (out += text) },
    stderr: {
      write: (text: string) => {
        err += text;
        for (const waiter of [...waiters]) waiter();
      },
    },
    signals,
    exit: () => undefined,
    configDebounceMs: options.configDebounceMs ?? 20,
    ...(options.clock !== undefined ? { clock: options.clock } : {}),
    env: options.env ?? {},
    anchorRoot: options.anchorRoot ?? '/nonexistent-anchor-root',
    ...(options.invokedAs !== undefined ? { invokedAs: options.invokedAs } : {}),
    ...(options.kubeApi !== undefined ? { kubeApi: options.kubeApi } : {}),
    nodeLabelIntervalMs: options.nodeLabelIntervalMs ?? 50,
  };
  const run = options.modes !== undefined ? { modes: options.modes } : {};
  const done = 'plugins' in target ? runPlugins(target, io, run) : runPlugin(target, io, run);
  const logs = (): Array<Record<string, unknown>> =>
    err
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return {
    done,
    stdout: () => out,
    stderr: () => err,
    logs,
    signal: (name) => void signals.emit(name),
    listeners: (name) => signals.listenerCount(name),
    waitForLog(predicate, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const line = logs().find(predicate);
          if (line === undefined) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(line);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching log line within ${timeoutMs} ms; stderr:\n${err}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async stop() {
      signals.emit('SIGTERM');
      return done;
    },
  };
}

/** Runs one command to its end (`discover`, `--help`, a usage error) and returns what it printed. */
export async function runPluginCommand(
  target: AnyPluginDefinition | MultiPluginProgram,
  argv: readonly string[],
  options: StartPluginRunOptions = {},
): Promise<{ readonly code: number; readonly stdout: string; readonly stderr: string }> {
  const run = startPluginRun(target, argv, options);
  const code = await run.done;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}
