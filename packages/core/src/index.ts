/**
 * The device-plugin lifecycle every kdp plugin stands on: the serve / register / re-register lifecycle, the
 * Allocate contract, health sources, configuration, CDI and metrics. The plugin runtime above it (definePlugin,
 * runPlugin) is the second entry point, `@kdp/core/plugin`. The author guide is the package README.
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
export { Code } from './code';
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
export {
  createBackoff,
  createLogger,
  isLogLevel,
  LOG_LEVELS,
  silentLogger,
  systemClock,
  writeFileAtomic,
} from '@kdp/base';
export type {
  BackoffOptions,
  Clock,
  LifecycleLogger,
  Logger,
  LogLevel,
  LogMethod,
  TimerHandle,
} from '@kdp/base';
export { sanitizeResourceName, socketFileName, socketPath } from './socket-path';
export { topologyPreferredAllocation } from './topology-preferred-allocation';
export { bindPluginMetrics } from './bind-plugin-metrics';
export type { LifecycleMetricsSink } from './bind-plugin-metrics';
export type { TopologyPreferenceOptions } from './topology-preferred-allocation';

// configuration, CDI, Kubernetes API access, metrics
export { z } from 'zod';
export { ConfigError, formatConfigIssues, isConfigError } from './config/config-error';
export type { ConfigIssue } from './config/config-error';
export { formatConfigPath } from './config/format-config-path';
export { loadConfig, parseConfigText, validateConfigValue } from './config/load-config';
export type {
  ConfigTransform,
  LoadConfigOptions,
  LoadedConfig,
  UnknownKeyPolicy,
} from './config/load-config';
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
export { getKubeJson, inClusterAccess, KubeApiError, SERVICE_ACCOUNT_DIR } from './kube/kube-api-access';
export { createNodeLabelWatch } from './kube/node-label-watch';
export type { NodeLabelWatch, NodeLabelWatchOptions } from './kube/node-label-watch';
export type { KubeApiAccess } from './kube/kube-api-access';
export { createPluginMetrics } from './metrics/plugin-metrics';
export type { PluginMetrics, PluginMetricsOptions } from './metrics/plugin-metrics';
