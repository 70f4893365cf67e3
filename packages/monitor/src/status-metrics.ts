import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The pod-resources methods the monitor calls, as the metrics' `method` label names them. */
export type PodResourcesMethod = 'List' | 'GetAllocatableResources';

/** The monitor's own health: call outcomes, last successes, backoff and plugin scrapes. */
export interface StatusMetrics {
  podResourcesCall(method: PodResourcesMethod, code: string, seconds: number): void;
  podResourcesPoll(ok: boolean, nowMs: number): void;
  backoff(seconds: number): void;
  reconnects(total: number): void;
  /** One scrape of a plugin endpoint: `ok`, `failed` (something listened but the scrape failed) or `absent` (refused). */
  pluginScrape(endpoint: string, outcome: PluginScrapeOutcome, nowMs: number): void;
}

/** How one scrape of a plugin endpoint went (`absent`: the connection was refused, see `EndpointScrape`). */
export type PluginScrapeOutcome = 'ok' | 'failed' | 'absent';

/** Registers the monitor's status metrics on `registry`, with every known series initialised. */
export function createStatusMetrics(
  registry: Registry,
  options: { version: string; pluginEndpoints: readonly string[] },
): StatusMetrics {
  const registers = [registry];
  new Gauge({
    name: 'kdp_monitor_build_info',
    help: 'Build of the running monitor; always 1.',
    labelNames: ['version'],
    registers,
  }).set({ version: options.version }, 1);
  const requests = new Counter({
    name: 'kdp_monitor_pod_resources_requests_total',
    help: 'Calls to the kubelet pod-resources API.',
    labelNames: ['method'],
    registers,
  });
  const errors = new Counter({
    name: 'kdp_monitor_pod_resources_errors_total',
    help: 'Failed calls to the kubelet pod-resources API, by gRPC status code.',
    labelNames: ['method', 'code'],
    registers,
  });
  const duration = new Histogram({
    name: 'kdp_monitor_pod_resources_request_duration_seconds',
    help: 'Duration of calls to the kubelet pod-resources API.',
    labelNames: ['method'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers,
  });
  const up = new Gauge({
    name: 'kdp_monitor_pod_resources_up',
    help: '1 when the last poll of the pod-resources API succeeded, else 0.',
    registers,
  });
  const lastSuccess = new Gauge({
    name: 'kdp_monitor_pod_resources_last_success_timestamp_seconds',
    help: 'When the pod-resources API last answered a whole poll (Unix time).',
    registers,
  });
  const backoff = new Gauge({
    name: 'kdp_monitor_pod_resources_backoff_seconds',
    help: 'Delay before the next poll while backing off after an error (0 when polling normally).',
    registers,
  });
  const reconnects = new Counter({
    name: 'kdp_monitor_pod_resources_reconnects_total',
    help: 'Connections to the pod-resources socket dropped and dialled again.',
    registers,
  });
  const pluginErrors = new Counter({
    name: 'kdp_monitor_plugin_scrape_errors_total',
    help: 'Failed scrapes of a plugin metrics endpoint that accepted the connection (refused ones are absent, not errors).',
    labelNames: ['endpoint'],
    registers,
  });
  const pluginUp = new Gauge({
    name: 'kdp_monitor_plugin_up',
    help: '1 when the last scrape of a plugin metrics endpoint succeeded, 0 when it failed; no series while absent.',
    labelNames: ['endpoint'],
    registers,
  });
  const pluginPresent = new Gauge({
    name: 'kdp_monitor_plugin_present',
    help: '1 when something accepted the connection at the last scrape of a plugin endpoint, 0 when it was refused.',
    labelNames: ['endpoint'],
    registers,
  });
  const pluginLast = new Gauge({
    name: 'kdp_monitor_plugin_last_success_timestamp_seconds',
    help: 'When a plugin metrics endpoint was last scraped successfully (Unix time).',
    labelNames: ['endpoint'],
    registers,
  });

  for (const method of ['List', 'GetAllocatableResources'] as const) requests.inc({ method }, 0);
  for (const endpoint of options.pluginEndpoints) pluginErrors.inc({ endpoint }, 0);
  up.set(0);
  backoff.set(0);
  let reconnectsSeen = 0;

  return {
    podResourcesCall(method, code, seconds) {
      requests.inc({ method });
      duration.observe({ method }, seconds);
      if (code !== 'OK') errors.inc({ method, code });
    },
    podResourcesPoll(ok, nowMs) {
      up.set(ok ? 1 : 0);
      if (ok) lastSuccess.set(nowMs / 1000);
    },
    backoff(seconds) {
      backoff.set(seconds);
    },
    reconnects(total) {
      if (total > reconnectsSeen) reconnects.inc(total - reconnectsSeen);
      reconnectsSeen = Math.max(reconnectsSeen, total);
    },
    pluginScrape(endpoint, outcome, nowMs) {
      pluginPresent.set({ endpoint }, outcome === 'absent' ? 0 : 1);
      // Absent is normal (a plugin runs only on nodes with its devices): no up series to alert on, no error.
      if (outcome === 'absent') pluginUp.remove({ endpoint });
      else pluginUp.set({ endpoint }, outcome === 'ok' ? 1 : 0);
      if (outcome === 'ok') pluginLast.set({ endpoint }, nowMs / 1000);
      if (outcome === 'failed') pluginErrors.inc({ endpoint });
    },
  };
}
