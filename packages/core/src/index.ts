// Public API of @kdp/core: the lifecycle every kdp device plugin stands on.

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
export type { TopologyPreferenceOptions } from './topology-preferred-allocation';
export { connectMetrics } from './connect-metrics';
export type { LifecycleMetricsSink } from './connect-metrics';
