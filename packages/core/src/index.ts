/**
 * The runtime every kdp device plugin stands on: the serve / register / re-register lifecycle, the Allocate
 * contract, health sources, and the shared runtime (configuration, CDI, metrics, logging, CLI). The author guide
 * is the package README.
 *
 * @packageDocumentation
 * @module @kdp/core
 */

// lifecycle: declarations, sources, serve / register / re-register, Allocate contract

export { createDevicePlugin } from './device-plugin';
export type { DevicePlugin, DevicePluginOptions } from './device-plugin';
export { checkDeclaration, defineResource } from './resource-declaration';
export type {
  AllocateContext,
  AnyResourceDeclaration,
  PreferredAllocationContext,
  PreStartContext,
  ResourceDeclaration,
  ResourceOptions,
} from './resource-declaration';
export type { ResourceStatus } from './resource-runtime';
export type {
  ContainerAllocation,
  DeviceHealth,
  DeviceMount,
  DeviceNode,
  PluginDevice,
} from './plugin-device';
export { createPushSource } from './device-source';
export type { DeviceListener, DeviceSource, PushSource } from './device-source';
export { createPollingSource } from './polling-source';
export type { PollingSourceOptions, ScanTrigger } from './polling-source';
export { createFsWatchTrigger } from './fs-watch-trigger';
export { enforcePreferredAllocation } from './preferred-allocation';
export { defaultAllocation, mergeAllocations } from './container-allocation';
export type { AllocationTransform } from './allocate-containers';
export { DevicePluginError } from './device-plugin-error';
export type {
  AllocateEvent,
  DevicePluginEvent,
  DevicesEvent,
  GaveUpEvent,
  RegisteredEvent,
  RegisterFailedEvent,
  ReregistrationReason,
  ResourceEvent,
  ResourceState,
  StateEvent,
  StreamEvent,
} from './plugin-events';
export type { ApiVersion } from './registration-client';
export { createBackoff } from './backoff';
export type { BackoffOptions } from './backoff';
export { systemClock } from './clock';
export type { Clock, TimerHandle } from './clock';
export { silentLogger } from './lifecycle-logger';
export type { LogMethod, LifecycleLogger } from './lifecycle-logger';
export { sanitizeResourceName, socketFileName, socketPath } from './socket-path';
export { topologyPreferredAllocation } from './topology-preferred-allocation';
export { bindPluginMetrics, serveDevicePlugin } from './serve-device-plugin';
export type { LifecycleMetricsSink, ServeDevicePluginContext } from './serve-device-plugin';
export type { TopologyPreferenceOptions } from './topology-preferred-allocation';

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
export type { PluginMetrics, PluginMetricsOptions, ProbeResult } from './metrics/plugin-metrics';
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
