// Public API of @kdp/monitor: the pod-resources device monitor, its parts and its CLI.

export { createBackoff } from './backoff';
export type { Backoff, BackoffOptions } from './backoff';
export { systemClock } from './clock';
export type { Clock } from './clock';
export { createDeviceMetrics, deviceHealthKey } from './device-metrics';
export type { DeviceMetrics } from './device-metrics';
export { createDeviceMonitor } from './device-monitor';
export type { DeviceMonitor, DeviceMonitorEvents, DeviceMonitorOptions, PollResult } from './device-monitor';
export { createLogger, isLogLevel, logLevels, silentLogger } from './logger';
export type { LogFields, Logger, LoggerOptions, LogLevel } from './logger';
export { startMetricsServer } from './metrics-server';
export type { MetricsServer, MetricsServerOptions } from './metrics-server';
export { buildNodeSnapshot, numaLabel } from './node-snapshot';
export type {
  AllocatableSnapshot,
  AllocatedCpu,
  AllocatedDevice,
  AllocatedMemory,
  DeviceRef,
  Holder,
  MemoryBlock,
  NodeSnapshot,
} from './node-snapshot';
export {
  parseCliArgs,
  parseHostPort,
  parsePluginMetricsUrl,
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
export type { PodResourcesMethod, StatusMetrics } from './status-metrics';
export { monitorVersion } from './version';
