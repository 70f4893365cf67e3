/**
 * The device-plugin lifecycle every kdp plugin stands on: the serve / register / re-register lifecycle, the
 * Allocate contract, health sources, configuration, CDI and metrics. The plugin runtime above it (definePlugin,
 * runPlugin) is the second entry point, `@kdp/core/plugin`. The author guide is the package README.
 *
 * @packageDocumentation
 * @module @kdp/core
 */

// lifecycle: declarations, sources, serve / register / re-register, Allocate contract

export type { DevicePlugin } from './device-plugin';
export type {
  AllocateContext,
  AnyResourceDeclaration,
  PreferredAllocationContext,
  PreStartContext,
  ResourceDeclaration,
  ResourceOptions,
} from './resource-declaration';
export type {
  CapacityRequestPolicy,
  DeviceNetworkData,
  DeviceShare,
  DeviceTaintEffect,
  DraCounterConsumption,
  DraCounterSet,
  DraPool,
  DraPoolDevice,
  DraPrepareContext,
  DraSharing,
  DraUnprepareContext,
  ResourceDraHooks,
  SharedCapacity,
} from './resource-dra-hooks';
export type {
  ClaimConfigContext,
  ClaimConfigEffect,
  ClaimConfigKind,
  ClaimConfigValue,
  ConfigBooleanField,
  ConfigField,
  ConfigIntegerField,
  ConfigObjectField,
  ConfigRefusedField,
  ConfigStringField,
  ConfigStringListField,
  ConfigStringMapField,
  ResourceClaimConfig,
} from './claim-config-schema';
export type { ResourceStatus } from './resource-runtime';
export type {
  ContainerAllocation,
  DeviceHealth,
  DeviceMount,
  DeviceNode,
  PluginDevice,
} from './plugin-device';
export type { DeviceListener, DeviceSource } from './device-source';
export { Code } from './code';
export { optimizingCompilers } from './optimizing-compilers';
export type { OptimizingCompilers } from './optimizing-compilers';
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
export { GRPC_CHANNEL_OPTIONS } from './grpc-channel-options';
export {
  createLogger,
  exitWhenFlushed,
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
export { topologyPreferredAllocation } from './topology-preferred-allocation';
export type { TopologyPreferenceOptions } from './topology-preferred-allocation';

// configuration, CDI, Kubernetes API access, metrics
export * as z from './config/z';
export { ConfigError, isConfigError } from './config/config-error';
export type { ConfigIssue } from './config/config-error';
export { parseConfigText, validateConfigValue } from './config/load-config';
export type {
  ConfigTransform,
  LoadConfigOptions,
  LoadedConfig,
  UnknownKeyPolicy,
} from './config/load-config';
export type { CdiContainerEdits, CdiDevice, CdiDeviceNode, CdiHook, CdiMount } from './cdi/cdi-spec';
export { createCdiSpecWriter } from './cdi/cdi-spec-writer';
export type { CdiSpecWriter, CdiSpecWriterOptions, CdiWriteResult } from './cdi/cdi-spec-writer';
export type { KubeApiAccess } from './kube/kube-api-access';
export { KubeApiError } from './kube/kube-api-error';
export type { KubeStatusCause } from './kube/kube-api-error';
export { createKubeClient } from './kube/kube-client';
export type {
  KubeClient,
  KubeClientOptions,
  KubeList,
  KubeListOptions,
  KubePreconditions,
} from './kube/kube-client';
export type { KubeWatch, KubeWatchEvent } from './kube/kube-watch';
export { loadKubeAccess } from './kube/load-kube-access';
export type { LoadKubeAccessOptions } from './kube/load-kube-access';
export type { PluginMetrics } from './metrics/plugin-metrics';
export { createNodeLabelWatch } from './kube/node-label-watch';
export type { NodeLabelWatch, NodeLabelWatchOptions } from './kube/node-label-watch';
