import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { PLUGIN_NAMES, type PluginName } from './plugin-names';
import type { SampleNode } from './sample-node/create-sample-node';

/** Where the plugins run: the directories every plugin shares. */
export interface PluginEnvironment {
  readonly node: SampleNode;
  /** Folder holding `plugin-<name>/dist/main.js` (the repository's `packages/`). */
  readonly packagesDir: string;
  readonly devicePluginDir: string;
  readonly cdiDir: string;
  /** The SR-IOV plugin's Multus device-info directory. */
  readonly devinfoDir: string;
  /** Every line the plugins write, prefixed with `[<plugin>] `. */
  readonly logFile: string;
  /** Called with each error-level log line of a plugin (its `msg`). */
  readonly onError?: (plugin: PluginName, message: string) => void;
  /** Called when a plugin exits without being asked to. */
  readonly onExit?: (plugin: PluginName, code: number | null, signal: NodeJS.Signals | null) => void;
}

/** One running plugin process. */
export interface PluginProcess {
  readonly name: PluginName;
  readonly child: ChildProcess;
  /** When it was spawned (epoch ms, the clock of kubelet-sim's events). */
  readonly startedAt: number;
  /** The last lines it wrote (at most 20). */
  logTail(): string[];
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it exited. */
  stop(graceMs?: number): Promise<void>;
}

const TAIL_LINES = 20;

/** Epoch ms with sub-millisecond resolution, comparable with kubelet-sim's event times. */
export const now = (): number => performance.timeOrigin + performance.now();

/** The command line of one plugin: `serve` with the sample node's roots and configuration. */
export function pluginArgs(plugin: PluginName, env: PluginEnvironment): string[] {
  const { node } = env;
  return [
    join(env.packagesDir, `plugin-${plugin}`, 'dist', 'main.js'),
    'serve',
    ...['--sysfs-root', node.sysfsRoot, '--proc-root', node.procRoot, '--dev-root', node.devRoot],
    ...[
      '--device-plugin-dir',
      env.devicePluginDir,
      '--cdi-dir',
      env.cdiDir,
      '--config',
      node.configs[plugin],
    ],
    ...(plugin === 'sriov' ? ['--devinfo-dir', env.devinfoDir] : []),
  ];
}

/** Spawns the five plugins (`node packages/plugin-<name>/dist/main.js serve …`), their output going to the log file. */
export function startPlugins(env: PluginEnvironment): PluginProcess[] {
  return PLUGIN_NAMES.map((name) => startPlugin(name, env));
}

function startPlugin(name: PluginName, env: PluginEnvironment): PluginProcess {
  // Its own process group: Ctrl-C in a terminal reaches the demo only, which then stops the plugins in order.
  const child = spawn(process.execPath, pluginArgs(name, env), {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const startedAt = now();
  const tail: string[] = [];
  let stopping = false;
  const onLine = (line: string): void => {
    if (line.trim() === '') return;
    tail.push(line);
    if (tail.length > TAIL_LINES) tail.shift();
    appendFileSync(env.logFile, `[${name}] ${line}\n`);
    const error = errorMessage(line);
    if (error !== undefined) env.onError?.(name, error);
  };
  for (const stream of [child.stdout, child.stderr]) {
    let pending = '';
    stream?.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop() ?? '';
      lines.forEach(onLine);
    });
    stream?.on('end', () => onLine(pending));
  }
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      if (!stopping) env.onExit?.(name, code, signal);
      resolve();
    });
    child.once('error', (err) => {
      onLine(`failed to start: ${err.message}`);
      resolve();
    });
  });
  return {
    name,
    child,
    startedAt,
    logTail: () => [...tail],
    stop: async (graceMs = 10_000) => {
      stopping = true;
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The message of an error-level JSON log line (pino style), or of a plain line that is not JSON at all. */
function errorMessage(line: string): string | undefined {
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return line;
  }
  if (typeof entry !== 'object' || entry === null) return undefined;
  const { level, msg } = entry as { level?: unknown; msg?: unknown };
  const isError = level === 'error' || level === 'fatal' || (typeof level === 'number' && level >= 50);
  return isError ? String(msg ?? line) : undefined;
}
