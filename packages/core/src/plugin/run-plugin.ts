import {
  createLogger,
  startProbeServer,
  systemClock,
  type Clock,
  type Logger,
  type ProbeServer,
} from '@kdp/base';
import { createHost } from '@kdp/topology';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { bindPluginMetrics } from '../bind-plugin-metrics';
import { formatConfigIssues, isConfigError, type ConfigIssue } from '../config/config-error';
import {
  loadConfig,
  validateConfigValue,
  type ConfigTransform,
  type LoadConfigOptions,
} from '../config/load-config';
import { watchConfig, type ConfigWatcher } from '../config/watch-config';
import { createDevicePlugin } from '../device-plugin';
import { selectNodeConfig } from '../config/select-node-config';
import { inClusterAccess, type KubeApiAccess } from '../kube/kube-api-access';
import { createNodeLabelWatch, type NodeLabelWatch } from '../kube/node-label-watch';
import { createPluginMetrics, type PluginMetrics } from '../metrics/plugin-metrics';
import { applyCompat, type CompatResult } from './compat/apply-compat';
import { createCompatConfigTransform } from './compat/compat-config';
import { openLogFile, type LogFile } from './log-file';
import {
  checkDirectories,
  formatHelp,
  ownFlagProbe,
  parseCommandLine,
  type CommonFlags,
  type PluginInvocation,
  type Program,
} from './command-line';
import type { CompatLayer } from './compat/compat-layer';
import type { AnyPluginDefinition } from './define-plugin';
import { discoverPlugin } from './discover-plugin';
import { toDiscoverDocument, type DiscoverResult } from './discover-result';
import { ExitCode, UsageError } from './exit-code';
import { formatDiscoverTable } from './format-discover-table';
import { servePlugin, type ServedPlugin } from './serve-plugin';
import { DEVICE_PLUGIN_MODE, type ResourceHost, type RunOptions, type ServeModeBackend } from './serve-mode';

/** Something text can be written to (process.stdout, a test buffer). */
export interface TextSink {
  write(text: string): unknown;
}

/** Where SIGTERM, SIGINT and SIGHUP come from (normally `process`). */
export interface ProcessSignals {
  on(event: 'SIGTERM' | 'SIGINT' | 'SIGHUP', listener: () => void): unknown;
  off(event: 'SIGTERM' | 'SIGINT' | 'SIGHUP', listener: () => void): unknown;
}

/** Where a plugin binary talks to the world; every field defaults to the process's own. */
export interface RunIo {
  /** The command line after the program name (default `process.argv.slice(2)`). */
  readonly argv?: readonly string[];
  readonly stdout?: TextSink;
  /** Logs go here too (default process.stderr). */
  readonly stderr?: TextSink;
  /** The one owner of SIGTERM, SIGINT and SIGHUP (default `process`). */
  readonly signals?: ProcessSignals;
  readonly clock?: Clock;
  /** Receives the exit code (default: the process exits with it as soon as the run is over). */
  readonly exit?: (code: number) => void;
  /** Quiet time after a configuration file changed before it is reloaded (default 200 ms). */
  readonly configDebounceMs?: number;
  /** The environment compat layers read (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Where compat layers' default configuration paths are looked up (default `/`; tests use a temp dir). */
  readonly anchorRoot?: string;
  /** The API server for `--node-config-label` (default: the pod's in-cluster service account). */
  readonly kubeApi?: KubeApiAccess;
  /** How often the node's labels are read again for `--node-config-label` (default 10 s). */
  readonly nodeLabelIntervalMs?: number;
}

/**
 * After the first SIGTERM or SIGINT, how long the clean-up may take before the process exits anyway with
 * status 1: inside Kubernetes' default 30 s termination grace period, so the kubelet never needs SIGKILL.
 */
const ShutdownDeadlineMs = 20_000;

/** Several plugins in one binary (`kdp-device-plugins`). */
export interface MultiPluginProgram {
  readonly binary: string;
  readonly title: string;
  readonly version: string;
  readonly plugins: readonly AnyPluginDefinition[];
}

/**
 * The whole `main.ts` of a plugin: the contract's command line (`serve`, `discover`, `--version`, `--help`
 * generated from the declared flags), configuration load and reload, scans, resources, metrics, signals and
 * exit codes (0 done, 1 failure, 2 usage or configuration error). Resolves with the exit code.
 */
export function runPlugin(
  definition: AnyPluginDefinition,
  io: RunIo = {},
  options: RunOptions = {},
): Promise<number> {
  const program: Program = {
    binary: definition.binary,
    title: definition.title,
    version: definition.version,
    plugins: [definition],
    multi: false,
    ...(options.modes !== undefined ? { modes: options.modes } : {}),
  };
  return runProgram(program, io);
}

/**
 * Runs several plugins in one process: `serve --plugins gpu,usb` (default: all), each with its own
 * `--<name>-config` and `--<name>-<flag>`, sharing one device plugin, one metrics port and one set of roots.
 */
export function runPlugins(
  program: MultiPluginProgram,
  io: RunIo = {},
  options: RunOptions = {},
): Promise<number> {
  const names = new Set<string>();
  for (const definition of program.plugins) {
    if (names.has(definition.name))
      throw new Error(`${program.binary}: plugin ${definition.name} is listed twice`);
    names.add(definition.name);
  }
  return runProgram(
    { ...program, multi: true, ...(options.modes !== undefined ? { modes: options.modes } : {}) },
    io,
  );
}

async function runProgram(program: Program, io: RunIo): Promise<number> {
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  const code = await run(program, io, stdout, stderr);
  if (io.exit) {
    io.exit(code);
  } else {
    // Exit now rather than when the event loop drains: the signal listeners are still installed (a late SIGTERM
    // is only logged), where a natural exit would first remove them; and a leaked handle must not keep a
    // terminating pod alive.
    process.exit(code);
  }
  return code;
}

async function run(program: Program, io: RunIo, stdout: TextSink, stderr: TextSink): Promise<number> {
  let command;
  let compat: CompatResult | undefined;
  try {
    let argv = io.argv ?? process.argv.slice(2);
    const layers = program.multi ? [] : (program.plugins[0]?.compat ?? []);
    if (layers.length > 0) {
      const probe = ownFlagProbe(program);
      compat = applyCompat({
        layers,
        argv,
        env: io.env ?? process.env,
        ownFlag: (name, value) => probe.accepts(name, value),
        ownTakesValue: (name) => probe.takesValue(name),
      });
      argv = compat.argv;
      // An anchor's DaemonSet `args` replace the image's default `serve`: anchor flags without a command mean serve.
      const COMMANDS = ['serve', 'discover', '--help', '-h', '--version'];
      if (compat.anchorFlags && !argv.some((token) => COMMANDS.includes(token))) argv = ['serve', ...argv];
    }
    command = parseCommandLine(program, argv);
    if (command.command === 'serve' || command.command === 'discover') {
      await checkDirectories(command.common, command.command, program, command.mode?.name);
      command = { ...command, plugins: await withDefaultConfigs(command.plugins, io.anchorRoot ?? '/') };
    }
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    stderr.write(`${program.binary}: ${error.message}\n\nRun ${program.binary} --help for the flags.\n`);
    return ExitCode.Usage;
  }
  if (command.command === 'help') {
    stdout.write(formatHelp(program));
    return ExitCode.Ok;
  }
  if (command.command === 'version') {
    stdout.write(`${program.binary} ${program.version}\n`);
    return ExitCode.Ok;
  }
  const { common } = command;
  const patches = compat?.patches ?? [];
  const plugins = command.plugins.map((invocation): ConfiguredPlugin => ({
    ...invocation,
    transform: createCompatConfigTransform(invocation.definition.compat ?? [], program.multi ? [] : patches),
  }));
  let logFile: LogFile | undefined;
  if (common.logDir !== undefined) {
    try {
      logFile = await openLogFile(common.logDir, program.binary);
    } catch (error) {
      stderr.write(`${program.binary}: --log-dir ${common.logDir}: ${(error as Error).message}\n`);
      return ExitCode.Usage;
    }
  }
  const logger = createLogger({
    level: common.logLevel,
    name: program.binary,
    destination: logFile === undefined ? stderr : logFile.tee(stderr),
  });
  for (const line of compat?.applied ?? []) logger.info({ compat: line }, 'anchor option applied');
  const loggerOf = (definition: AnyPluginDefinition): Logger =>
    program.multi ? logger.child({ plugin: definition.name }) : logger;
  const clock = io.clock ?? systemClock;
  const host = createHost({
    sysfsRoot: common.sysfsRoot,
    devRoot: common.devRoot,
    procRoot: common.procRoot,
  });
  const signals = io.signals ?? process;
  const controller = new AbortController();
  const configs: Array<{ current: () => unknown; watcher?: ConfigWatcher<unknown> }> = [];
  const onTerminate = (name: string) => () => {
    if (controller.signal.aborted) {
      logger.info({ signal: name }, 'already shutting down');
      return;
    }
    logger.info({ signal: name }, 'shutting down');
    controller.abort();
    if (io.signals === undefined) {
      // A clean-up that hangs must still end inside the pod's grace period, without the kubelet's SIGKILL.
      setTimeout(() => {
        logger.error({ deadlineMs: ShutdownDeadlineMs }, 'shutdown did not finish in time; exiting');
        process.exit(ExitCode.Failure);
      }, ShutdownDeadlineMs).unref();
    }
  };
  const onTerm = onTerminate('SIGTERM');
  const onInt = onTerminate('SIGINT');
  const onHup = (): void => {
    const watchers = configs.flatMap((config) => (config.watcher ? [config.watcher] : []));
    if (watchers.length === 0) logger.info({}, 'SIGHUP received; no configuration file to reload');
    for (const watcher of watchers) void watcher.reload('signal');
  };
  signals.on('SIGTERM', onTerm);
  signals.on('SIGINT', onInt);
  if (command.command === 'serve') signals.on('SIGHUP', onHup);
  const metrics = createPluginMetrics({
    build: { plugin: program.binary, version: program.version },
    // Process metrics only where someone can read them (their event-loop monitor has a cost of its own).
    defaultMetrics: command.common.metricsAddress !== undefined,
  });
  let probeServer: ProbeServer | undefined;
  let nodeLabels: NodeLabelWatch | undefined;
  const env = io.env ?? process.env;
  const nodeName = common.nodeName ?? env['NODE_NAME'];
  try {
    if (common.nodeConfigLabel !== undefined) {
      const access = io.kubeApi ?? (await inClusterAccess(env));
      if (nodeName === undefined || nodeName === '' || access === undefined) {
        const missing =
          access === undefined
            ? 'the API server (an in-cluster service account)'
            : 'the node name (--node-name or $NODE_NAME)';
        throw new UsageError(`--node-config-label ${common.nodeConfigLabel} needs ${missing}`);
      }
      nodeLabels = createNodeLabelWatch({
        access,
        nodeName,
        ...(io.nodeLabelIntervalMs !== undefined ? { intervalMs: io.nodeLabelIntervalMs } : {}),
        onChange: (labels) => {
          logger.info(
            { label: common.nodeConfigLabel, value: labels[common.nodeConfigLabel ?? ''] ?? null },
            'node labels read',
          );
          for (const config of configs) void config.watcher?.reload('file');
        },
        onError: (error) =>
          logger.warn(
            { problem: error.message },
            'cannot read the node labels; selecting the configuration without them',
          ),
      });
      await nodeLabels.refresh();
      if (command.command === 'serve') nodeLabels.start();
    }
    const selectFile = (dir: string) =>
      selectNodeConfig(dir, {
        ...(nodeName !== undefined && nodeName !== '' ? { nodeName } : {}),
        ...(common.nodeConfigLabel !== undefined ? { label: common.nodeConfigLabel } : {}),
        ...(nodeLabels !== undefined ? { labels: () => nodeLabels?.current() } : {}),
        ...(common.defaultConfig !== undefined ? { defaultKey: common.defaultConfig } : {}),
      });
    for (const invocation of plugins) invocation.selectFile = selectFile;
    if (command.command === 'discover') {
      const results: DiscoverResult[] = [];
      const configWarnings: string[] = [];
      const configValues: Record<string, unknown> = {};
      for (const invocation of plugins) {
        const { value, warnings } = await loadOnce(invocation);
        configValues[invocation.definition.name] = value;
        configWarnings.push(...warnings.map((w) => formatConfigIssues(invocation.configFile ?? '', [w])));
        results.push(
          await discoverPlugin({
            definition: invocation.definition,
            flags: invocation.flags,
            host,
            cdiDir: common.cdiDir,
            config: value,
            logger: loggerOf(invocation.definition),
            clock,
            signal: controller.signal,
          }),
        );
      }
      const doc = toDiscoverDocument(
        {
          resources: results.flatMap((result) => result.resources),
          excluded: results.flatMap((result) => result.excluded ?? []),
          warnings: results.flatMap((result) => result.warnings ?? []),
        },
        configWarnings,
      );
      // The running configuration, converted from an anchor's format where it was one (one plugin: itself).
      const config = program.multi ? configValues : Object.values(configValues)[0];
      stdout.write(
        command.output === 'json'
          ? `${JSON.stringify({ ...doc, config }, null, 2)}\n`
          : formatDiscoverTable(doc),
      );
      return ExitCode.Ok;
    }
    return await serve({
      program,
      common,
      plugins,
      io,
      logger,
      loggerOf,
      clock,
      host,
      metrics,
      configs,
      signal: controller.signal,
      setProbeServer: (server) => (probeServer = server),
      mode: command.mode,
      env,
      nodeName,
    });
  } catch (error) {
    if (isConfigError(error) || error instanceof UsageError) {
      stderr.write(`${program.binary}: ${error.message}\n`);
      return ExitCode.Usage;
    }
    logger.error({ err: error }, `${command.command} failed`);
    stderr.write(`${program.binary}: ${error instanceof Error ? error.message : String(error)}\n`);
    return ExitCode.Failure;
  } finally {
    nodeLabels?.stop();
    for (const config of configs) config.watcher?.close();
    await probeServer?.close();
    await logFile?.close();
    // The process's own listeners stay until it exits: removing the last one restores the kernel's default
    // action at once, and a SIGTERM between that and the exit would kill the process by signal (status 143).
    if (io.signals !== undefined) {
      signals.off('SIGTERM', onTerm);
      signals.off('SIGINT', onInt);
      signals.off('SIGHUP', onHup);
    }
  }
}

const schemaOf = (definition: AnyPluginDefinition): z.ZodType =>
  definition.config?.schema ?? z.strictObject({});
/** A plugin as the command line configures it, with the compat layers' configuration transform. */
interface ConfiguredPlugin extends PluginInvocation {
  readonly transform: ConfigTransform | undefined;
  /** Chooses this node's file when the configuration is a directory. */
  selectFile?: LoadConfigOptions['selectFile'];
}

const loadOptionsOf = (invocation: ConfiguredPlugin): LoadConfigOptions => ({
  unknownKeys: invocation.definition.config?.unknownKeys ?? 'error',
  ...(invocation.transform !== undefined ? { transform: invocation.transform } : {}),
  ...(invocation.selectFile !== undefined ? { selectFile: invocation.selectFile } : {}),
});

/** Loads a plugin's configuration once: its file, or its defaults through the schema. */
async function loadOnce(
  invocation: ConfiguredPlugin,
): Promise<{ value: unknown; warnings: readonly ConfigIssue[] }> {
  const { definition } = invocation;
  if (invocation.configFile === undefined) {
    return validateConfigValue(
      '<built-in defaults>',
      definition.config?.defaults ?? {},
      schemaOf(definition),
      loadOptionsOf(invocation),
    );
  }
  return loadConfig(invocation.configFile, schemaOf(definition), loadOptionsOf(invocation));
}

/**
 * A plugin without `--config` whose compat layers name default files (`/etc/pcidp/config.json`) loads the first
 * that exists, as the anchor would; `root` prefixes them (tests).
 */
async function withDefaultConfigs(
  plugins: readonly PluginInvocation[],
  root: string,
): Promise<PluginInvocation[]> {
  return Promise.all(
    plugins.map(async (invocation) => {
      if (invocation.configFile !== undefined || plugins.length > 1) return invocation;
      for (const path of (invocation.definition.compat ?? []).flatMap(
        (layer: CompatLayer) => layer.defaultConfigPaths ?? [],
      )) {
        const file = join(root, path);
        if ((await stat(file).catch(() => undefined))?.isFile() === true)
          return { ...invocation, configFile: file };
      }
      return invocation;
    }),
  );
}

interface ServeOptions {
  readonly program: Program;
  readonly common: CommonFlags;
  readonly plugins: readonly ConfiguredPlugin[];
  readonly io: RunIo;
  readonly logger: Logger;
  readonly loggerOf: (definition: AnyPluginDefinition) => Logger;
  readonly clock: Clock;
  readonly host: ReturnType<typeof createHost>;
  readonly metrics: PluginMetrics;
  readonly configs: Array<{ current: () => unknown; watcher?: ConfigWatcher<unknown> }>;
  readonly signal: AbortSignal;
  readonly setProbeServer: (server: ProbeServer) => void;
  /** `--mode` and its flags (absent: the program has no modes). */
  readonly mode: { readonly name: string; readonly flags: Readonly<Record<string, unknown>> } | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly nodeName: string | undefined;
}

async function serve(options: ServeOptions): Promise<number> {
  const { common, logger, metrics, signal } = options;
  const served: ServedPlugin[] = [];
  // Configurations first: a bad file stops the process before anything is served (exit 2).
  for (const invocation of options.plugins) {
    const pluginLogger = options.loggerOf(invocation.definition);
    const file = invocation.configFile;
    if (file === undefined) {
      const loaded = await loadOnce(invocation);
      logWarnings(pluginLogger, '<built-in defaults>', loaded.warnings);
      options.configs.push({ current: () => loaded.value });
      continue;
    }
    const entry: { current: () => unknown; watcher?: ConfigWatcher<unknown> } = { current: () => undefined };
    const watcher = await watchConfig({
      file,
      schema: schemaOf(invocation.definition),
      ...loadOptionsOf(invocation),
      signals: null,
      ...(options.io.configDebounceMs !== undefined ? { debounceMs: options.io.configDebounceMs } : {}),
      onChange: (change) => {
        metrics.configReload(true);
        pluginLogger.info(
          { config: file, reason: change.reason, ...(change.selected ? { selected: change.selected } : {}) },
          'configuration reloaded',
        );
        logWarnings(pluginLogger, file, change.warnings);
        served[options.configs.indexOf(entry)]?.reconfigured();
      },
      onError: (error, reason) => {
        metrics.configReload(false);
        pluginLogger.error(
          { config: file, reason, problem: error.message },
          'configuration reload failed; keeping the running configuration',
        );
      },
    });
    logWarnings(pluginLogger, file, watcher.warnings);
    if (watcher.selected !== undefined)
      pluginLogger.info({ config: file, selected: watcher.selected }, 'configuration chosen for this node');
    entry.watcher = watcher;
    entry.current = () => watcher.current;
    options.configs.push(entry);
  }
  let started = false;
  const modeName = options.mode?.name ?? DEVICE_PLUGIN_MODE;
  const mode = modeName === DEVICE_PLUGIN_MODE ? undefined : options.program.modes?.[modeName];
  if (modeName !== DEVICE_PLUGIN_MODE && mode === undefined)
    throw new UsageError(`unknown --mode ${modeName}`);
  let backend: ServeModeBackend | undefined;
  if (mode !== undefined)
    backend = await mode.create({
      binary: options.program.binary,
      version: options.program.version,
      common,
      flags: options.mode?.flags ?? {},
      nodeName: options.nodeName === '' ? undefined : options.nodeName,
      env: options.env,
      plugins: options.plugins.map((invocation) => invocation.definition),
      logger,
      loggerOf: options.loggerOf,
      clock: options.clock,
      host: options.host,
      signal,
    });
  const ready = (): { ok: boolean; message?: string } =>
    backend === undefined ? metrics.readiness() : (backend.readiness?.() ?? { ok: true });
  if (common.metricsAddress !== undefined) {
    const server = await startProbeServer({
      address: common.metricsAddress,
      metrics: metrics.registry,
      readiness: () => (started ? ready() : { ok: false, message: 'first scan not finished' }),
    });
    options.setProbeServer(server);
    logger.info({ url: server.url }, 'serving /metrics, /healthz and /readyz');
  }
  if (backend !== undefined) return serveMode(options, backend, served, () => (started = true));
  const devicePlugin = createDevicePlugin({
    devicePluginDir: common.devicePluginDir,
    registration: common.registration,
    pluginsRegistryDir: common.pluginsRegistryDir,
    logger,
    clock: options.clock,
  });
  const unbind = bindPluginMetrics(devicePlugin, metrics);
  const owners = new Map<string, string>();
  served.push(...servePlugins(options, () => devicePlugin, owners));
  logStarting(options);
  // Lifecycle timers do not hold the event loop; while the plugin waits for a restarting kubelet, this does.
  const keepAlive = setInterval(() => undefined, 60_000);
  try {
    await devicePlugin.start();
    await Promise.all(served.map((plugin) => plugin.start()));
    started = true;
    await Promise.race([
      new Promise<void>((resolve) =>
        signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true }),
      ),
      devicePlugin.stopped,
    ]);
  } finally {
    clearInterval(keepAlive);
    await Promise.all(served.map((plugin) => plugin.stop()));
    await devicePlugin.stop();
    unbind();
    for (const plugin of served) await plugin.stopHook();
  }
  logger.info({}, 'stopped');
  return ExitCode.Ok;
}

/** One {@link servePlugin} per plugin of the process, each serving its resources on `hostOf(definition)`. */
function servePlugins(
  options: ServeOptions,
  hostOf: (definition: AnyPluginDefinition) => ResourceHost,
  owners: Map<string, string>,
): ServedPlugin[] {
  const { common } = options;
  return options.plugins.map((invocation, index) =>
    servePlugin({
      definition: invocation.definition,
      flags: invocation.flags,
      host: options.host,
      cdiDir: common.cdiDir,
      deviceListStrategy: common.deviceListStrategy,
      metrics: options.metrics,
      pollIntervalMs: common.pollIntervalMs,
      nfdFeaturesDir: common.nfdFeaturesDir,
      config: () => options.configs[index]?.current(),
      devicePlugin: hostOf(invocation.definition),
      owners,
      logger: options.loggerOf(invocation.definition),
      clock: options.clock,
      signal: options.signal,
    }),
  );
}

function logStarting(options: ServeOptions): void {
  options.logger.info(
    {
      version: options.program.version,
      plugins: options.plugins.map((p) => p.definition.name),
      flags: options.common,
      ...(options.mode !== undefined ? { mode: options.mode.name } : {}),
    },
    'starting',
  );
}

/**
 * `serve` in a mode other than device-plugin: the same scans feed the mode's backend, which starts once every
 * plugin's first scan is applied and stops after the scans (before the plugins' stop hooks).
 */
async function serveMode(
  options: ServeOptions,
  backend: ServeModeBackend,
  served: ServedPlugin[],
  markStarted: () => void,
): Promise<number> {
  const { logger, signal } = options;
  served.push(...servePlugins(options, (definition) => backend.resources(definition), new Map()));
  logStarting(options);
  const keepAlive = setInterval(() => undefined, 60_000);
  try {
    await Promise.all(served.map((plugin) => plugin.start()));
    await backend.start();
    markStarted();
    await Promise.race([
      new Promise<void>((resolve) =>
        signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true }),
      ),
      ...(backend.stopped !== undefined ? [backend.stopped] : []),
    ]);
  } finally {
    clearInterval(keepAlive);
    await Promise.all(served.map((plugin) => plugin.stop()));
    await backend.stop();
    for (const plugin of served) await plugin.stopHook();
  }
  logger.info({}, 'stopped');
  return ExitCode.Ok;
}

function logWarnings(logger: Logger, file: string, warnings: readonly ConfigIssue[]): void {
  for (const warning of warnings)
    logger.warn({ config: file, field: warning.path }, formatConfigIssues(file, [warning]));
}
