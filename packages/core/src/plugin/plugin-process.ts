import { createLogger, startProbeServer, systemClock, type Logger, type ProbeServer } from '@kdp/base';
import { createHost } from '@kdp/topology';
import type * as PluginMetricsModule from '../metrics/plugin-metrics';
import type { PluginMetrics } from '../metrics/plugin-metrics';
import { createUnservedPluginMetrics } from '../metrics/unserved-plugin-metrics';
import type { Program } from './command-line';
import { memoryReducingGc, startIdleHeapRelease } from './idle-heap-release';
import type { CommonFlags } from './common-flags';
import { ExitCode, UsageError } from './exit-code';
import { createMallocTrim } from './malloc-trim';
import { openLogFile, type LogFile } from './log-file';
import { createPageOut } from './page-out';
import type { ProcessServices } from './process-services';
import type { RunIo, TextSink } from './run-io';

/**
 * After the first SIGTERM or SIGINT, how long the clean-up may take before the process exits anyway with
 * status 1: inside Kubernetes' default 30 s termination grace period, so the kubelet never needs SIGKILL.
 */
const ShutdownDeadlineMs = 20_000;

/** What `/readyz` answers. */
export type Readiness = () => { readonly ok: boolean; readonly message?: string };

/** A running plugin process: its logs, roots, metrics, shutdown signal and probe server. */
export interface PluginProcess extends ProcessServices {
  /** Serves /metrics, /healthz and /readyz on `--metrics-address` (nothing without it); closed by `close`. */
  startProbeServer(readiness: Readiness): Promise<void>;
  /** Closes the probe server and the log file, and lets go of the signals. */
  close(): Promise<void>;
}

/** Options of {@link startPluginProcess}. */
export interface PluginProcessOptions {
  readonly program: Program;
  readonly common: CommonFlags;
  readonly io: RunIo;
  readonly stderr: TextSink;
  /** SIGHUP: reload the configurations (`serve`); absent: SIGHUP keeps its default action. */
  readonly onHangup?: (logger: Logger) => void;
}

/**
 * Starts the process around a command: the JSON logger (and `--log-dir`'s file), the roots, the metrics, and the
 * signal handlers (SIGTERM and SIGINT abort, with a deadline when they are the process's own). Throws
 * `UsageError` when the log file cannot be opened.
 */
export async function startPluginProcess(options: PluginProcessOptions): Promise<PluginProcess> {
  const { program, common, io } = options;
  const logFile = await openLog(program, common);
  const logger = createLogger({
    level: common.logLevel,
    name: program.binary,
    destination: logFile === undefined ? options.stderr : logFile.tee(options.stderr),
  });
  const controller = new AbortController();
  const releaseSignals = handleSignals(io, logger, controller, options.onHangup);
  const metrics = metricsOf(program, common);
  // With `--expose-gc` (the images set it in NODE_OPTIONS) a burst's garbage is given back once it is quiet, the
  // holes its freed buffers left in the C heap, and the pages of code it no longer runs.
  const gc = memoryReducingGc();
  const stopHeapRelease =
    gc === undefined
      ? undefined
      : startIdleHeapRelease({
          gc,
          trim: createMallocTrim({
            onUnavailable: (reason) =>
              logger.debug({ reason }, 'malloc_trim unavailable; the C heap is not trimmed'),
          }),
          pageOut: pageOutLogged(logger),
          clock: io.clock ?? systemClock,
        });
  let probeServer: ProbeServer | undefined;
  return {
    logger,
    loggerOf: (definition) => (program.multi ? logger.child({ plugin: definition.name }) : logger),
    clock: io.clock ?? systemClock,
    host: createHost({ sysfsRoot: common.sysfsRoot, devRoot: common.devRoot, procRoot: common.procRoot }),
    metrics,
    signal: controller.signal,
    async startProbeServer(readiness) {
      if (common.metricsAddress === undefined) return;
      probeServer = await startProbeServer({
        address: common.metricsAddress,
        metrics: metrics.registry,
        readiness,
      });
      logger.info({ url: probeServer.url }, 'serving /metrics, /healthz and /readyz');
    },
    async close() {
      stopHeapRelease?.();
      await probeServer?.close();
      await logFile?.close();
      releaseSignals();
    },
  };
}

/** {@link createPageOut}, with each page-out and its effect logged at debug level. */
function pageOutLogged(logger: Logger): () => void {
  const pageOut = createPageOut({
    onUnavailable: (reason) => logger.debug({ reason }, 'page-out unavailable; code stays resident'),
  });
  return () => {
    const result = pageOut();
    if (result === undefined) return;
    const mib = (kib: number): number => Math.round(kib / 102.4) / 10;
    logger.debug(
      {
        mappings: result.advised,
        refused: result.refused,
        residentFileMiB: [mib(result.residentFileKiB.before), mib(result.residentFileKiB.after)],
      },
      'code paged out',
    );
  };
}

/**
 * The metric set: prom-client's, with the process metrics, where `--metrics-address` serves it; else one that
 * keeps no series, so that prom-client is never loaded (nor its event-loop monitor run) where nobody reads it.
 */
function metricsOf(program: Program, common: CommonFlags): PluginMetrics {
  if (common.metricsAddress === undefined) return createUnservedPluginMetrics();
  // Loaded here only: the bundle evaluates prom-client's module on this path alone.
  const { createPluginMetrics } = require('../metrics/plugin-metrics') as typeof PluginMetricsModule;
  return createPluginMetrics({
    build: { plugin: program.binary, version: program.version },
    defaultMetrics: true,
  });
}

async function openLog(program: Program, common: CommonFlags): Promise<LogFile | undefined> {
  if (common.logDir === undefined) return undefined;
  try {
    return await openLogFile(common.logDir, program.binary);
  } catch (error) {
    throw new UsageError(`--log-dir ${common.logDir}: ${(error as Error).message}`);
  }
}

/** Installs the signal handlers; returns what lets go of them (only of signals the run was given). */
function handleSignals(
  io: RunIo,
  logger: Logger,
  controller: AbortController,
  onHangup: ((logger: Logger) => void) | undefined,
): () => void {
  const signals = io.signals ?? process;
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
  const onHup = (): void => onHangup?.(logger);
  signals.on('SIGTERM', onTerm);
  signals.on('SIGINT', onInt);
  if (onHangup !== undefined) signals.on('SIGHUP', onHup);
  return () => {
    // The process's own listeners stay until it exits: removing the last one restores the kernel's default
    // action at once, and a SIGTERM between that and the exit would kill the process by signal (status 143).
    if (io.signals === undefined) return;
    signals.off('SIGTERM', onTerm);
    signals.off('SIGINT', onInt);
    signals.off('SIGHUP', onHup);
  };
}
