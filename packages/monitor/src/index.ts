// Public API of @kdp/monitor: the pod-resources device monitor, its parts and its CLI. The clock, backoff,
// logger, probe server and HOST:PORT parser it runs on are @kdp/base's, and exported from there.

export { createDeviceMetrics, deviceHealthKey } from './device-metrics';
export type { DeviceMetrics, DraHealthLookup } from './device-metrics';
export { createDeviceMonitor } from './device-monitor';
export type { DeviceMonitor, DeviceMonitorEvents, DeviceMonitorOptions } from './device-monitor';
export type { PollResult } from './pod-resources-poller';
export { createDraHealthWatcher, defaultDraPluginsDir } from './dra-health-watcher';
export type { DraHealthState, DraHealthWatcher, DraHealthWatcherOptions } from './dra-health-watcher';
export { buildNodeSnapshot, numaLabel } from './node-snapshot';
export type {
  AllocatableSnapshot,
  AllocatedCpu,
  AllocatedDevice,
  AllocatedDraDevice,
  AllocatedMemory,
  DeviceRef,
  Holder,
  MemoryBlock,
  NodeSnapshot,
} from './node-snapshot';
export {
  parseCliArgs,
  parsePluginMetricsUrl,
  pluginMetricsUrlsOf,
  defaultMetricsAddress,
  usage,
} from './parse-cli-args';
export type { CliCommand, CliParseResult } from './parse-cli-args';
export { parsePrometheusText, parsePrometheusValue } from './parse-prometheus-text';
export type { PrometheusParseResult, PrometheusSample } from './parse-prometheus-text';
export {
  createPluginHealthScraper,
  deviceHealthFromText,
  deviceHealthMetric,
  fetchText,
} from './plugin-health-scraper';
export type {
  DeviceHealth,
  EndpointScrape,
  FetchText,
  PluginHealthScraper,
  PluginHealthScraperOptions,
} from './plugin-health-scraper';
export { createPodResourcesClient, grpcCode, grpcCodeName } from './pod-resources-client';
export type { PodResourcesClient, PodResourcesClientOptions } from './pod-resources-client';
export { runDeviceMonitor } from './run-device-monitor';
export type { CliIo } from './run-device-monitor';
export { createStatusMetrics } from './status-metrics';
export type { PluginScrapeOutcome, PodResourcesMethod, StatusMetrics } from './status-metrics';
export { monitorVersion } from './version';
