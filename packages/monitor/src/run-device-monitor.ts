import { createLogger, startProbeServer, type LifecycleLogger, type ProbeServer } from '@kdp/base';
import { Registry } from 'prom-client';
import { createDeviceMonitor } from './device-monitor';
import { parseCliArgs, usage } from './parse-cli-args';
import { createPluginHealthScraper } from './plugin-health-scraper';
import { createPodResourcesClient } from './pod-resources-client';
import { monitorVersion } from './version';

/** Where the CLI writes and what stops it. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Aborting it stops the monitor (main wires SIGTERM and SIGINT here). */
  signal: AbortSignal;
  /** Where the monitor logs (default: pino JSON lines at `--log-level`, written to `stderr`). */
  logger?: LifecycleLogger;
}

/** Runs `device-monitor` with `argv`; resolves with the exit code (0 stopped, 1 failed to start, 2 bad usage). */
export async function runDeviceMonitor(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCliArgs(argv);
  if (!parsed.ok) {
    io.stderr(`device-monitor: ${parsed.message}\nRun 'device-monitor --help' for usage.\n`);
    return 2;
  }
  const command = parsed.command;
  if (command.kind === 'help') {
    io.stdout(usage);
    return 0;
  }
  if (command.kind === 'version') {
    io.stdout(`device-monitor ${monitorVersion}\n`);
    return 0;
  }

  const logger =
    io.logger ??
    createLogger({ level: command.logLevel, name: 'device-monitor', destination: { write: io.stderr } });
  const registry = new Registry();
  const client = createPodResourcesClient({ socketPath: command.podResourcesSocket });
  const monitor = createDeviceMonitor({
    client,
    registry,
    intervalMs: command.intervalMs,
    logger,
    version: monitorVersion,
    ...(command.pluginMetrics.length > 0
      ? { healthScraper: createPluginHealthScraper({ endpoints: command.pluginMetrics }) }
      : {}),
    ...(command.draPluginsDir === undefined ? {} : { draPluginsDir: command.draPluginsDir }),
  });
  let server: ProbeServer;
  try {
    server = await startProbeServer({
      address: command.metricsAddress,
      metrics: registry,
      readiness: () => monitor.readiness(),
    });
  } catch (error) {
    logger.error({ address: command.metricsAddress, err: error }, 'cannot serve metrics');
    client.close();
    return 1;
  }
  logger.info(
    {
      version: monitorVersion,
      podResourcesSocket: command.podResourcesSocket,
      metricsAddress: server.url.slice('http://'.length),
      metricsPort: server.address.port,
      intervalMs: command.intervalMs,
      pluginMetrics: command.pluginMetrics,
      draPluginsDir: command.draPluginsDir ?? null,
    },
    'device-monitor started',
  );
  monitor.start();
  await new Promise<void>((resolve) => {
    if (io.signal.aborted) resolve();
    else io.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  logger.info({}, 'device-monitor stopping');
  await monitor.stop();
  await server.close();
  client.close();
  return 0;
}
