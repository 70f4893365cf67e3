// Public API of @kdp/core.

// runtime: configuration, CDI, metrics, logging, CLI
export { z } from 'zod';
export { ConfigError, formatConfigIssues, isConfigError } from './config/config-error';
export type { ConfigIssue } from './config/config-error';
export { formatConfigPath } from './config/format-config-path';
export { loadConfig, parseConfigText, validateConfigValue } from './config/load-config';
export type { LoadConfigOptions, LoadedConfig, UnknownKeyPolicy } from './config/load-config';
export { watchConfig } from './config/watch-config';
export type {
  ConfigChange,
  ConfigReloadReason,
  ConfigWatcher,
  SignalSource,
  WatchConfigOptions,
} from './config/watch-config';
export {
  cdiQualifiedName,
  parseCdiQualifiedName,
  validateCdiClass,
  validateCdiDeviceName,
  validateCdiKind,
  validateCdiVendor,
} from './cdi/cdi-names';
export type { CdiNameValidation } from './cdi/cdi-names';
export { CDI_SPEC_VERSION, checkCdiContainerEdits, minimumCdiVersion } from './cdi/cdi-spec';
export type { CdiContainerEdits, CdiDevice, CdiDeviceNode, CdiHook, CdiMount, CdiSpec } from './cdi/cdi-spec';
export { createCdiSpecWriter } from './cdi/cdi-spec-writer';
export type { CdiSpecWriter, CdiSpecWriterOptions, CdiWriteResult } from './cdi/cdi-spec-writer';
export { createLogger, isLogLevel, LOG_LEVELS } from './log/create-logger';
export type { CreateLoggerOptions, LogDestination, Logger, LogLevel } from './log/create-logger';
export { createPluginMetrics } from './metrics/plugin-metrics';
export type {
  DeviceHealth,
  PluginMetrics,
  PluginMetricsOptions,
  ProbeResult,
} from './metrics/plugin-metrics';
export { startMetricsServer } from './metrics/metrics-server';
export type { MetricsServer, MetricsServerOptions, ProbeProvider } from './metrics/metrics-server';
export { parseHostPort } from './metrics/parse-host-port';
export type { HostPort } from './metrics/parse-host-port';
export { ExitCode, UsageError } from './cli/exit-code';
export { toDiscoverDocument } from './cli/discover-result';
export type {
  DiscoverDocument,
  DiscoveredDevice,
  DiscoveredDeviceSpec,
  DiscoveredResource,
  DiscoverResult,
  ExcludedDevice,
} from './cli/discover-result';
export { formatDiscoverTable } from './cli/format-discover-table';
export {
  checkFlagDirectories,
  COMMON_FLAG_DEFAULTS,
  formatUsage,
  parsePluginArgs,
} from './cli/parse-plugin-args';
export type { CommonFlags, ExtraFlag, ExtraFlagValues, PluginCommand } from './cli/parse-plugin-args';
export { runPluginCli } from './cli/run-plugin-cli';
export type {
  CliContext,
  DiscoverContext,
  PluginCliOptions,
  ProcessSignals,
  ServeContext,
  TextSink,
} from './cli/run-plugin-cli';
