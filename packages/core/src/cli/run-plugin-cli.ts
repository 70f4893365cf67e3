import { z } from 'zod';
import { formatConfigIssues, isConfigError, type ConfigIssue } from '../config/config-error';
import { loadConfig, validateConfigValue, type UnknownKeyPolicy } from '../config/load-config';
import { watchConfig, type ConfigChange, type ConfigWatcher } from '../config/watch-config';
import { createLogger, type Logger } from '../log/create-logger';
import { startMetricsServer, type MetricsServer, type ProbeProvider } from '../metrics/metrics-server';
import { createPluginMetrics, type PluginMetrics } from '../metrics/plugin-metrics';
import { toDiscoverDocument, type DiscoverResult } from './discover-result';
import { ExitCode, UsageError } from './exit-code';
import { formatDiscoverTable } from './format-discover-table';
import {
  checkFlagDirectories,
  formatUsage,
  parsePluginArgs,
  type CommonFlags,
  type ExtraFlag,
  type ExtraFlagValues,
} from './parse-plugin-args';

/** Something text can be written to (process.stdout, a test buffer). */
export interface TextSink {
  write(text: string): unknown;
}

/** Where SIGTERM, SIGINT and SIGHUP come from (normally `process`). */
export interface ProcessSignals {
  on(event: 'SIGTERM' | 'SIGINT' | 'SIGHUP', listener: () => void): unknown;
  off(event: 'SIGTERM' | 'SIGINT' | 'SIGHUP', listener: () => void): unknown;
}

/** What both commands get. */
export interface CliContext<C> {
  /** The common flags, parsed and checked. */
  readonly flags: CommonFlags;
  /** The plugin's own flags. */
  readonly extra: ExtraFlagValues;
  /** The configuration: from `--config`, else the defaults; for `serve`, always the running one. */
  readonly config: C;
  /** JSON logger on stderr at `--log-level`. */
  readonly logger: Logger;
  /** Fires on SIGTERM or SIGINT. */
  readonly signal: AbortSignal;
}

/** What `discover` gets. */
export type DiscoverContext<C> = CliContext<C>;

/** What `serve` gets in addition. */
export interface ServeContext<C> extends CliContext<C> {
  /** Subscribes to configuration reloads (SIGHUP, file change); returns the unsubscribe function. */
  onConfigChange(listener: (change: ConfigChange<C>) => void): () => void;
  /** The plugin metrics (already served when `--metrics-address` is set). */
  readonly metrics: PluginMetrics;
  /** The metrics server, when `--metrics-address` is set. */
  readonly metricsServer: MetricsServer | undefined;
  /** Replaces what /readyz answers (default: `metrics.readiness`, every resource registered). */
  setReadiness(provider: ProbeProvider): void;
}

/** Options for {@link runPluginCli}. */
export interface PluginCliOptions<S extends z.ZodType> {
  /** Human name, the first line of --help. */
  readonly name: string;
  /** The binary, e.g. `gpu-device-plugin`. */
  readonly binary: string;
  /** Printed by --version and exported as `kdp_build_info`. */
  readonly version: string;
  /** The command line after the program name (`process.argv.slice(2)`). */
  readonly argv: readonly string[];
  /** One scan. */
  readonly discover: (ctx: DiscoverContext<z.output<S>>) => Promise<DiscoverResult>;
  /** The daemon; should resolve once `ctx.signal` fired and everything is cleaned up. */
  readonly serve: (ctx: ServeContext<z.output<S>>) => Promise<void>;
  /** Schema of the `--config` file (default: an object with no keys). */
  readonly configSchema?: S;
  /** Input used when `--config` is absent, run through the schema (default `{}`, i.e. the schema's defaults). */
  readonly defaults?: z.input<S>;
  /** Unknown keys in the file (default `error`; `warn` for formats borrowed from other projects). */
  readonly unknownKeys?: UnknownKeyPolicy;
  /** Plugin-specific flags beyond the common ones. */
  readonly extraFlags?: Readonly<Record<string, ExtraFlag>>;
  /** Default process.stdout. */
  readonly stdout?: TextSink;
  /** Default process.stderr; logs go here too. */
  readonly stderr?: TextSink;
  /** Called with the exit code before `runPluginCli` resolves (default: none; the caller sets process.exitCode). */
  readonly exit?: (code: number) => void;
  /** Default `process`. */
  readonly signals?: ProcessSignals;
  /** Config reload debounce (ms); tests shorten it. */
  readonly configDebounceMs?: number;
}

/**
 * The command line every kdp plugin shares: `serve`, `discover [--output json|table]`, `--version`,
 * `--help`, the common flags of the plugin contract, and its exit codes (0 done, 1 failure, 2 usage or
 * configuration error). Resolves with the exit code.
 */
export async function runPluginCli<S extends z.ZodType = z.ZodObject<Record<string, never>>>(
  options: PluginCliOptions<S>,
): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const code = await run(options, stdout, stderr);
  options.exit?.(code);
  return code;
}

async function run<S extends z.ZodType>(
  options: PluginCliOptions<S>,
  stdout: TextSink,
  stderr: TextSink,
): Promise<number> {
  const usage = formatUsage(options.binary, options.name, options.extraFlags);
  let command;
  try {
    command = parsePluginArgs(options.argv, options.extraFlags);
    if (command.command === 'serve' || command.command === 'discover')
      await checkFlagDirectories(command.flags, command.command);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    stderr.write(`${options.binary}: ${error.message}\n\n${usage}`);
    return ExitCode.Usage;
  }
  if (command.command === 'help') {
    stdout.write(usage);
    return ExitCode.Ok;
  }
  if (command.command === 'version') {
    stdout.write(`${options.binary} ${options.version}\n`);
    return ExitCode.Ok;
  }

  const schema = (options.configSchema ?? z.strictObject({})) as S;
  const loadOptions = { unknownKeys: options.unknownKeys ?? 'error' } as const;
  const { flags, extra } = command;
  const logger = createLogger({ level: flags.logLevel, name: options.binary, destination: stderr });
  const signals = options.signals ?? process;
  const controller = new AbortController();
  const onTerminate = (name: string) => () => {
    if (controller.signal.aborted) return;
    logger.info({ signal: name }, 'shutting down');
    controller.abort();
  };
  const onTerm = onTerminate('SIGTERM');
  const onInt = onTerminate('SIGINT');
  signals.on('SIGTERM', onTerm);
  signals.on('SIGINT', onInt);
  // Without --config there is nothing to reload, but SIGHUP's default action would end the process.
  const onHup = () => logger.info('SIGHUP received; no --config file to reload');
  if (command.command === 'serve' && flags.config === undefined) signals.on('SIGHUP', onHup);

  let watcher: ConfigWatcher<z.output<S>> | undefined;
  let metricsServer: MetricsServer | undefined;
  try {
    let config: z.output<S>;
    let configWarnings: readonly ConfigIssue[];
    const metrics = createPluginMetrics({
      build: { plugin: options.binary, version: options.version },
      defaultMetrics: true,
    });
    const listeners = new Set<(change: ConfigChange<z.output<S>>) => void>();
    if (flags.config === undefined) {
      const defaults = validateConfigValue(
        '<built-in defaults>',
        options.defaults ?? {},
        schema,
        loadOptions,
      );
      [config, configWarnings] = [defaults.value, defaults.warnings];
    } else if (command.command === 'discover') {
      const loaded = await loadConfig(flags.config, schema, loadOptions);
      [config, configWarnings] = [loaded.value, loaded.warnings];
    } else {
      watcher = await watchConfig({
        file: flags.config,
        schema,
        ...loadOptions,
        signals,
        ...(options.configDebounceMs !== undefined ? { debounceMs: options.configDebounceMs } : {}),
        onChange: (change) => {
          metrics.configReload(true);
          logger.info({ config: flags.config, reason: change.reason }, 'configuration reloaded');
          logWarnings(logger, flags.config ?? '', change.warnings);
          for (const listener of listeners) listener(change);
        },
        onError: (error, reason) => {
          metrics.configReload(false);
          logger.error(
            { config: flags.config, reason, problem: error.message },
            'configuration reload failed; keeping the running configuration',
          );
        },
      });
      [config, configWarnings] = [watcher.current, watcher.warnings];
    }

    if (command.command === 'discover') {
      const ctx: DiscoverContext<z.output<S>> = { flags, extra, config, logger, signal: controller.signal };
      const result = await options.discover(ctx);
      const doc = toDiscoverDocument(
        result,
        configWarnings.map((w) => formatConfigIssues(flags.config ?? '', [w])),
      );
      stdout.write(
        command.output === 'json' ? `${JSON.stringify(doc, null, 2)}\n` : formatDiscoverTable(doc),
      );
      return ExitCode.Ok;
    }

    logWarnings(logger, flags.config ?? '', configWarnings);
    let readiness: ProbeProvider = metrics.readiness;
    if (flags.metricsAddress !== undefined) {
      metricsServer = await startMetricsServer({
        address: flags.metricsAddress,
        registry: metrics.registry,
        readiness: () => readiness(),
      });
      logger.info({ url: metricsServer.url }, 'serving /metrics, /healthz and /readyz');
    }
    const running = watcher;
    const ctx: ServeContext<z.output<S>> = {
      flags,
      extra,
      get config() {
        return running ? running.current : config;
      },
      logger,
      signal: controller.signal,
      metrics,
      metricsServer,
      onConfigChange(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      setReadiness(provider) {
        readiness = provider;
      },
    };
    logger.info({ version: options.version, flags }, 'starting');
    await options.serve(ctx);
    logger.info('stopped');
    return ExitCode.Ok;
  } catch (error) {
    if (isConfigError(error) || error instanceof UsageError) {
      stderr.write(`${options.binary}: ${error.message}\n`);
      return ExitCode.Usage;
    }
    logger.error({ err: error }, `${command.command} failed`);
    stderr.write(`${options.binary}: ${error instanceof Error ? error.message : String(error)}\n`);
    return ExitCode.Failure;
  } finally {
    signals.off('SIGTERM', onTerm);
    signals.off('SIGINT', onInt);
    signals.off('SIGHUP', onHup);
    watcher?.close();
    await metricsServer?.close();
  }
}

function logWarnings(logger: Logger, file: string, warnings: readonly ConfigIssue[]): void {
  for (const warning of warnings)
    logger.warn({ config: file, field: warning.path }, formatConfigIssues(file, [warning]));
}
