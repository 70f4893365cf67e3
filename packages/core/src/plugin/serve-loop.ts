import type { Program, ChosenMode } from './command-line';
import type { CommonFlags } from './common-flags';
import { ExitCode } from './exit-code';
import { codeCacheStatus } from './code-cache-status';
import { offersModes } from './command-line';
import { watchPluginConfig, type ConfiguredPlugin, type PluginConfig } from './plugin-config';
import type { PluginProcess } from './plugin-process';
import { servePlugin, type ServedPlugin } from './serve-plugin';
import type { ServeModeBackend } from './serve-mode';

/** What `serve` is run with. */
export interface ServeOptions {
  readonly program: Program;
  readonly common: CommonFlags;
  readonly plugins: readonly ConfiguredPlugin[];
  readonly mode: ChosenMode;
  readonly process: PluginProcess;
  /** Filled with each plugin's configuration, in the order of `plugins` (SIGHUP and node labels reload them). */
  readonly configs: PluginConfig[];
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `--node-name`, else `$NODE_NAME`. */
  readonly nodeName: string | undefined;
  /** Quiet time after a configuration file changed before it is reloaded. */
  readonly configDebounceMs: number | undefined;
}

/**
 * `serve` in any mode: the configurations loaded (a bad one stops the process before anything is served), the
 * mode's backend created, the plugins' scans feeding it, until SIGTERM or SIGINT, or the backend ends by itself.
 * The backend opens before the first scans and starts after them; `/readyz` is its readiness once started.
 */
export async function serve(options: ServeOptions): Promise<number> {
  const { process } = options;
  const served: ServedPlugin[] = [];
  for (const [index, invocation] of options.plugins.entries()) {
    options.configs.push(
      await watchPluginConfig({
        invocation,
        logger: process.loggerOf(invocation.definition),
        metrics: process.metrics,
        debounceMs: options.configDebounceMs,
        onReload: () => served[index]?.reconfigured(),
      }),
    );
  }
  const backend = await createBackend(options);
  let started = false;
  await process.startProbeServer(() =>
    started ? (backend.readiness?.() ?? { ok: true }) : { ok: false, message: 'first scan not finished' },
  );
  served.push(...servePlugins(options, backend));
  logStarting(options);
  await runUntilStopped(backend, served, process.signal, () => (started = true));
  process.logger.info({}, 'stopped');
  return ExitCode.Ok;
}

function createBackend(options: ServeOptions): ServeModeBackend | Promise<ServeModeBackend> {
  const { process } = options;
  return options.mode.serveMode.create({
    binary: options.program.binary,
    version: options.program.version,
    common: options.common,
    flags: options.mode.flags,
    nodeName: options.nodeName === '' ? undefined : options.nodeName,
    env: options.env,
    plugins: options.plugins.map((invocation) => invocation.definition),
    logger: process.logger,
    loggerOf: process.loggerOf,
    clock: process.clock,
    host: process.host,
    metrics: process.metrics,
    signal: process.signal,
  });
}

/** One {@link servePlugin} per plugin of the process, each serving its resources on the backend. */
function servePlugins(options: ServeOptions, backend: ServeModeBackend): ServedPlugin[] {
  const { common, process } = options;
  const owners = new Map<string, string>();
  return options.plugins.map((invocation, index) =>
    servePlugin({
      definition: invocation.definition,
      flags: invocation.flags,
      host: process.host,
      cdiDir: common.cdiDir,
      deviceListStrategy: common.deviceListStrategy,
      metrics: process.metrics,
      pollIntervalMs: common.pollIntervalMs,
      nfdFeaturesDir: common.nfdFeaturesDir,
      config: () => options.configs[index]?.current(),
      devicePlugin: backend.resources(invocation.definition),
      owners,
      logger: process.loggerOf(invocation.definition),
      clock: process.clock,
      signal: process.signal,
    }),
  );
}

function logStarting(options: ServeOptions): void {
  const codeCache = codeCacheStatus();
  options.process.logger.info(
    {
      version: options.program.version,
      plugins: options.plugins.map((p) => p.definition.name),
      flags: options.common,
      ...(offersModes(options.program) ? { mode: options.mode.name } : {}),
      ...(codeCache !== undefined ? { codeCache } : {}),
    },
    'starting',
  );
}

/**
 * The serve loop: opens the backend, runs every plugin's first scan, starts the backend, then waits for the
 * shutdown signal or the backend's own end; stops scanning, then the backend, then runs the plugins' stop hooks.
 */
async function runUntilStopped(
  backend: ServeModeBackend,
  served: readonly ServedPlugin[],
  signal: AbortSignal,
  markStarted: () => void,
): Promise<void> {
  // Lifecycle timers do not hold the event loop; while the plugin waits for a restarting kubelet, this does.
  const keepAlive = setInterval(() => undefined, 60_000);
  try {
    await backend.open?.();
    await Promise.all(served.map((plugin) => plugin.start()));
    await backend.start?.();
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
}
