import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { PLUGIN_NAMES, type PluginName } from './plugin-names';
import type { SampleNode } from './sample-node/create-sample-node';

/** The binary running all five plugins in one process (`packages/device-plugins`). */
export const ALL_IN_ONE = 'kdp-device-plugins';

/** Where the plugins run: the directories every plugin shares. */
export interface PluginEnvironment extends PluginDirs {
  /** Folder holding `plugin-<name>/dist/main.js` and `device-plugins/dist/main.js` (the repository's `packages/`). */
  readonly packagesDir: string;
  /** Every line the plugins write, prefixed with `[<plugin>] `. */
  readonly logFile: string;
  /** Called with each JSON log line of a plugin. */
  readonly onLog?: (entry: PluginLogEntry) => void;
  /** Called with each error-level log line (its `msg`) and each line that is no JSON at all. */
  readonly onError?: (source: string, message: string) => void;
  /** Called when a process exits without being asked to. */
  readonly onExit?: (process: PluginProcess, code: number | null, signal: NodeJS.Signals | null) => void;
}

/** One JSON log line of a plugin (pino style). */
export interface PluginLogEntry {
  /** The plugin that wrote it; undefined for the process-wide lines of `kdp-device-plugins`. */
  readonly plugin: PluginName | undefined;
  readonly level: string;
  readonly msg: string;
  /** Every field of the line. */
  readonly fields: Readonly<Record<string, unknown>>;
}

/** One running process: a single plugin, or `kdp-device-plugins` hosting all five. */
export interface PluginProcess {
  /** `gpu`, … for a single plugin; `kdp-device-plugins` for all five in one process. */
  readonly name: string;
  /** The plugins it runs. */
  readonly plugins: readonly PluginName[];
  readonly child: ChildProcess;
  /** When it was spawned (epoch ms, the clock of kubelet-sim's events). */
  readonly startedAt: number;
  /** The last lines it wrote (at most 20); with `plugin`, only that plugin's and the process-wide ones. */
  logTail(plugin?: PluginName): string[];
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it exited. */
  stop(graceMs?: number): Promise<void>;
}

const TAIL_LINES = 20;

/** Epoch ms with sub-millisecond resolution, comparable with kubelet-sim's event times. */
export const now = (): number => performance.timeOrigin + performance.now();

/** Plugins that read procfs, and so take `--proc-root`. */
const READS_PROCFS: ReadonlySet<PluginName> = new Set(['gpu', 'sriov']);

/** The directories a plugin process on the sample node is pointed at. */
export interface PluginDirs {
  readonly node: SampleNode;
  readonly devicePluginDir: string;
  readonly cdiDir: string;
  /** The SR-IOV plugin's Multus device-info directory. */
  readonly devinfoDir: string;
}

/** The flags a process gets: the sample node's roots (procfs where read) and the shared directories. */
function commonArgs(dirs: PluginDirs, plugins: readonly PluginName[]): string[] {
  const { node } = dirs;
  return [
    ...['--sysfs-root', node.sysfsRoot, '--dev-root', node.devRoot],
    ...(plugins.some((plugin) => READS_PROCFS.has(plugin)) ? ['--proc-root', node.procRoot] : []),
    ...['--device-plugin-dir', dirs.devicePluginDir, '--cdi-dir', dirs.cdiDir],
  ];
}

/** One plugin's `serve` command line (after its bundle): the sample node's roots, configuration and flags. */
export function pluginServeArgs(plugin: PluginName, dirs: PluginDirs): string[] {
  return [
    'serve',
    ...commonArgs(dirs, [plugin]),
    ...['--config', dirs.node.configs[plugin]],
    ...(plugin === 'sriov' ? ['--devinfo-dir', dirs.devinfoDir] : []),
    ...dirs.node.flags[plugin],
  ];
}

/**
 * `kdp-device-plugins serve` with all five plugins and the same configurations (after its bundle); each
 * plugin's own flags carry its name (`--gpu-config`, `--sriov-devinfo-dir`). The common flags of the single
 * processes (the InfiniBand plugin's `--poll-interval`) are left out: in one process they would apply to all.
 */
export function allInOneServeArgs(dirs: PluginDirs): string[] {
  return [
    'serve',
    ...['--plugins', PLUGIN_NAMES.join(',')],
    ...commonArgs(dirs, PLUGIN_NAMES),
    ...PLUGIN_NAMES.flatMap((plugin) => [`--${plugin}-config`, dirs.node.configs[plugin]]),
    ...['--sriov-devinfo-dir', dirs.devinfoDir],
  ];
}

/** The command line of one plugin: its bundle, then {@link pluginServeArgs}. */
export function pluginArgs(plugin: PluginName, env: PluginEnvironment): string[] {
  return [join(env.packagesDir, `plugin-${plugin}`, 'dist', 'main.js'), ...pluginServeArgs(plugin, env)];
}

/** The command line of `kdp-device-plugins`: its bundle, then {@link allInOneServeArgs}. */
export function allInOneArgs(env: PluginEnvironment): string[] {
  return [join(env.packagesDir, 'device-plugins', 'dist', 'main.js'), ...allInOneServeArgs(env)];
}

/** The DRA side of the node: the driver's node, API server credentials and the kubelet's DRA directories. */
export interface DraDirs {
  readonly nodeName: string;
  readonly kubeconfig: string;
  /** The kubelet's plugin-watcher directory (`plugins_registry`). */
  readonly pluginsRegistryDir: string;
  /** The kubelet's DRA plugin directory (`plugins`): the driver's socket and checkpoint. */
  readonly draPluginsDir: string;
}

/** The plugin served through DRA as well (its second process). */
export const DRA_PLUGIN: PluginName = 'usb';

/**
 * The command line of the process serving {@link DRA_PLUGIN} through DRA: `usb-device-plugin serve --mode dra`
 * (with `allInOne`, `kdp-device-plugins serve --mode dra --plugins usb`) on the same roots, configuration and CDI
 * directory as its device-plugin process.
 */
export function draArgs(env: PluginEnvironment, dra: DraDirs, allInOne = false): string[] {
  const { node } = env;
  return [
    allInOne
      ? join(env.packagesDir, 'device-plugins', 'dist', 'main.js')
      : join(env.packagesDir, `plugin-${DRA_PLUGIN}`, 'dist', 'main.js'),
    ...['serve', '--mode', 'dra'],
    ...(allInOne
      ? ['--plugins', DRA_PLUGIN, `--${DRA_PLUGIN}-config`, node.configs[DRA_PLUGIN]]
      : ['--config', node.configs[DRA_PLUGIN]]),
    ...['--sysfs-root', node.sysfsRoot, '--dev-root', node.devRoot, '--cdi-dir', env.cdiDir],
    ...['--node-name', dra.nodeName, '--kubeconfig', dra.kubeconfig],
    ...['--plugins-registry-dir', dra.pluginsRegistryDir, '--dra-plugins-dir', dra.draPluginsDir],
  ];
}

/** Starts the process serving {@link DRA_PLUGIN} through DRA (named `usb-dra` in the log file). */
export function startDraPlugin(env: PluginEnvironment, dra: DraDirs, allInOne = false): PluginProcess {
  return startProcess(`${DRA_PLUGIN}-dra`, [], draArgs(env, dra, allInOne), env);
}

/**
 * Starts the plugins: five processes (`node packages/plugin-<name>/dist/main.js serve …`), or with `allInOne`
 * one (`node packages/device-plugins/dist/main.js serve --plugins gpu,sriov,infiniband,usb,fpga …`). Their
 * output goes to the log file.
 */
export function startPlugins(
  env: PluginEnvironment,
  options: { readonly allInOne?: boolean } = {},
): PluginProcess[] {
  if (options.allInOne === true) return [startProcess(ALL_IN_ONE, PLUGIN_NAMES, allInOneArgs(env), env)];
  return PLUGIN_NAMES.map((name) => startProcess(name, [name], pluginArgs(name, env), env));
}

function startProcess(
  name: string,
  plugins: readonly PluginName[],
  args: readonly string[],
  env: PluginEnvironment,
): PluginProcess {
  // Its own process group: Ctrl-C in a terminal reaches the demo only, which then stops the plugins in order.
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const startedAt = now();
  const tail: { plugin: PluginName | undefined; line: string }[] = [];
  let stopping = false;
  const onLine = (line: string): void => {
    if (line.trim() === '') return;
    const entry = parseLogLine(line, plugins);
    // A process of no plugin of its own (the DRA driver) is named by its process name, even in its `plugin` field.
    const plugin = entry === 'not json' || plugins.length === 0 ? undefined : entry?.plugin;
    tail.push({ plugin, line });
    if (tail.length > TAIL_LINES) tail.shift();
    appendFileSync(env.logFile, `[${plugin ?? name}] ${line}\n`);
    if (entry === 'not json') {
      env.onError?.(name, line);
      return;
    }
    if (entry === undefined) return;
    if (plugins.length > 0) env.onLog?.(entry);
    if (['error', 'fatal'].includes(entry.level)) env.onError?.(plugin ?? name, entry.msg);
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
      if (!stopping) env.onExit?.(running, code, signal);
      resolve();
    });
    child.once('error', (err) => {
      onLine(`failed to start: ${err.message}`);
      resolve();
    });
  });
  // 'close' comes after 'exit' once the output pipes are drained: the last lines reach the log file before stop() returns.
  const drained = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const running: PluginProcess = {
    name,
    plugins,
    child,
    startedAt,
    logTail: (plugin) =>
      tail
        .filter((t) => plugin === undefined || t.plugin === undefined || t.plugin === plugin)
        .map((t) => t.line),
    stop: async (graceMs = 10_000) => {
      stopping = true;
      if (child.pid === undefined) return;
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      await drained;
    },
  };
  return running;
}

const LEVELS: Record<number, string> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};

/**
 * A JSON log line (pino style) as an entry, `'not json'` for a plain line (a usage error, a crash), undefined for
 * JSON that is no log entry. Its plugin: the `plugin` field of `kdp-device-plugins`, or the process's only one.
 */
function parseLogLine(line: string, plugins: readonly PluginName[]): PluginLogEntry | 'not json' | undefined {
  let fields: unknown;
  try {
    fields = JSON.parse(line);
  } catch {
    return 'not json';
  }
  if (typeof fields !== 'object' || fields === null) return undefined;
  const record = fields as Record<string, unknown>;
  const named = PLUGIN_NAMES.find((p) => p === record['plugin']);
  const level = typeof record['level'] === 'number' ? LEVELS[record['level']] : record['level'];
  return {
    plugin: plugins.length === 1 ? plugins[0] : named,
    level: typeof level === 'string' ? level : 'info',
    msg: String(record['msg'] ?? line),
    fields: record,
  };
}
