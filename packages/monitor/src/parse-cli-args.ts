import { PodResourcesSocket, UnixSocketPathMaxBytes } from '@kdp/api';
import { isLogLevel, LOG_LEVELS, parseHostPort, type LogLevel } from '@kdp/base';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

/** Default `--metrics-address`. */
export const defaultMetricsAddress = '0.0.0.0:9410';

/** What `device-monitor` was asked to do. */
export type CliCommand =
  | { kind: 'help' }
  | { kind: 'version' }
  | {
      kind: 'run';
      podResourcesSocket: string;
      /** `HOST:PORT`, `[IPv6]:PORT` or `:PORT` (every interface), already checked; port 0 picks a free port. */
      metricsAddress: string;
      intervalMs: number;
      pluginMetrics: string[];
      logLevel: LogLevel;
    };

/** Either the command or a usage error (exit code 2). */
export type CliParseResult = { ok: true; command: CliCommand } | { ok: false; message: string };

/** The `--help` text. */
export const usage = `Usage: device-monitor [flags]

Exports per-pod device metrics for Prometheus from the kubelet's PodResources API.

Flags:
  --pod-resources-socket PATH   kubelet pod-resources socket [${PodResourcesSocket}]
  --metrics-address HOST:PORT   where /metrics, /healthz and /readyz are served; :PORT = every interface
                                [${defaultMetricsAddress}]
  --interval MS                 poll interval in milliseconds, 10..3600000 [1000]
  --plugin-metrics URL[,URL…]   plugin metrics endpoints whose kdp_device_health is joined in (repeatable)
  --log-level LEVEL             ${LOG_LEVELS.join(' | ')} [info]
  --version                     print the version and exit
  --help                        print this help and exit
`;

/** Checks one plugin metrics URL (http or https); a bare host:port URL gets the path /metrics. */
export function parsePluginMetricsUrl(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password) return undefined;
  if (url.pathname === '/' && !value.endsWith('/')) url.pathname = '/metrics';
  return url.toString();
}

/** Parses `device-monitor` arguments (without node and the script). */
export function parseCliArgs(argv: readonly string[]): CliParseResult {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        'pod-resources-socket': { type: 'string' },
        'metrics-address': { type: 'string' },
        interval: { type: 'string' },
        'plugin-metrics': { type: 'string', multiple: true },
        'log-level': { type: 'string' },
        version: { type: 'boolean' },
        help: { type: 'boolean' },
      },
    }));
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
  if (values.help) return { ok: true, command: { kind: 'help' } };
  if (values.version) return { ok: true, command: { kind: 'version' } };

  const socket = values['pod-resources-socket'] ?? PodResourcesSocket;
  if (socket === '') return { ok: false, message: '--pod-resources-socket: empty path' };
  if (Buffer.byteLength(resolve(socket)) > UnixSocketPathMaxBytes) {
    return {
      ok: false,
      message: `--pod-resources-socket: '${socket}' is longer than the ${UnixSocketPathMaxBytes} bytes a unix socket path may have`,
    };
  }
  const metricsAddress = values['metrics-address'] ?? defaultMetricsAddress;
  try {
    parseHostPort(metricsAddress);
  } catch (error) {
    return { ok: false, message: `--metrics-address: ${(error as Error).message}` };
  }
  const intervalText = values.interval ?? '1000';
  const intervalMs = /^\d+$/.test(intervalText) ? Number(intervalText) : Number.NaN;
  if (!(intervalMs >= 10 && intervalMs <= 3_600_000)) {
    return {
      ok: false,
      message: `--interval: '${intervalText}' is not a whole number of milliseconds in 10..3600000`,
    };
  }
  const logLevel = values['log-level'] ?? 'info';
  if (!isLogLevel(logLevel))
    return { ok: false, message: `--log-level: '${logLevel}' is not one of ${LOG_LEVELS.join(', ')}` };
  const pluginMetrics: string[] = [];
  for (const item of (values['plugin-metrics'] ?? []).flatMap((v) => v.split(','))) {
    if (item.trim() === '') continue;
    const url = parsePluginMetricsUrl(item.trim());
    if (!url)
      return { ok: false, message: `--plugin-metrics: '${item}' is not an http(s) URL without credentials` };
    if (!pluginMetrics.includes(url)) pluginMetrics.push(url);
  }
  return {
    ok: true,
    command: {
      kind: 'run',
      podResourcesSocket: socket,
      metricsAddress,
      intervalMs,
      pluginMetrics,
      logLevel,
    },
  };
}
