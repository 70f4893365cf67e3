import { PodResourcesSocket, UnixSocketPathMaxBytes } from '@kdp/api';
import { defaultDraPluginsDir } from './dra-health-watcher';
import { isLogLevel, LOG_LEVELS, parseHostPort, type LogLevel } from '@kdp/base';
import { isIPv6, isIP } from 'node:net';
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
      /** Where the DRA drivers' sockets are, for their device health; undefined: no DRA health. */
      draPluginsDir: string | undefined;
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
  --plugin-metrics-host HOST    the node's address, where the plugins' metrics ports are published
                                (the DaemonSet passes $(NODE_IP), from status.hostIP); needs --plugin-metrics-ports
  --plugin-metrics-ports PORT[,PORT…]
                                scrape http://HOST:PORT/metrics for each port (repeatable)
  --dra-plugins-dir DIR         DRA plugins directory: the health service of each driver's <DIR>/<driver>/dra*.sock
                                is joined to its devices; '' = none [${defaultDraPluginsDir}]
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

/** A DNS name: dot-separated labels of letters, digits and inner hyphens. */
const hostNamePattern =
  /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/**
 * The metrics URLs of `ports` on `host` (an IPv4 or IPv6 address, bare or in brackets, or a DNS name), in port
 * order given, or a message saying which value is wrong.
 */
export function pluginMetricsUrlsOf(
  host: string,
  ports: readonly string[],
): { ok: true; urls: string[] } | { ok: false; message: string } {
  const bare = /^\[(.*)\]$/.exec(host)?.[1] ?? host;
  if (!(isIP(bare) !== 0 || (bare === host && hostNamePattern.test(host)))) {
    const hint = host.includes('$(')
      ? ' (an unset environment variable? NODE_IP must come from status.hostIP)'
      : '';
    return {
      ok: false,
      message: `--plugin-metrics-host: '${host}' is not an IP address or host name${hint}`,
    };
  }
  const urls: string[] = [];
  for (const port of ports) {
    const number = /^\d{1,5}$/.test(port) ? Number(port) : Number.NaN;
    if (!(number >= 1 && number <= 65535))
      return { ok: false, message: `--plugin-metrics-ports: '${port}' is not a port in 1..65535` };
    urls.push(new URL(`http://${isIPv6(bare) ? `[${bare}]` : bare}:${number}/metrics`).toString());
  }
  return { ok: true, urls };
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
        'plugin-metrics-host': { type: 'string' },
        'plugin-metrics-ports': { type: 'string', multiple: true },
        'dra-plugins-dir': { type: 'string' },
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
  const draPluginsDir = values['dra-plugins-dir'] ?? defaultDraPluginsDir;
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
  const host = values['plugin-metrics-host'];
  const ports = (values['plugin-metrics-ports'] ?? []).flatMap((v) => v.split(',')).map((v) => v.trim());
  if (host !== undefined || ports.length > 0) {
    // Both or neither: a host without ports (or ports without a host) would be a flag accepted and ignored.
    if (host === undefined)
      return { ok: false, message: '--plugin-metrics-ports needs --plugin-metrics-host' };
    if (ports.every((port) => port === ''))
      return { ok: false, message: '--plugin-metrics-host needs --plugin-metrics-ports' };
    const onHost = pluginMetricsUrlsOf(
      host,
      ports.filter((port) => port !== ''),
    );
    if (!onHost.ok) return onHost;
    for (const url of onHost.urls) if (!pluginMetrics.includes(url)) pluginMetrics.push(url);
  }
  return {
    ok: true,
    command: {
      kind: 'run',
      podResourcesSocket: socket,
      metricsAddress,
      intervalMs,
      pluginMetrics,
      draPluginsDir: draPluginsDir === '' ? undefined : resolve(draPluginsDir),
      logLevel,
    },
  };
}
