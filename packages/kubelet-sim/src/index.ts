/**
 * A simulated kubelet device manager, its events, a conformance suite for device plugins, a test plugin
 * and the `kubelet-sim` CLI.
 *
 * @packageDocumentation
 * @module @kdp/kubelet-sim
 */

export type { Clock } from '@kdp/base';
export { createKubeletSim } from './kubelet-sim';
export type {
  AdmitRequest,
  Admission,
  KubeletSim,
  DraOptions,
  KubeletSimOptions,
  ResourceState,
  RestartOptions,
  StallableRpc,
} from './kubelet-sim-types';
export type { RateLimit } from './rate-limiter';
export type {
  AdmissionFailedEvent,
  AllocatedEvent,
  CheckpointWrittenEvent,
  DevicesEvent,
  EventBase,
  PluginApiVersion,
  PreStartedEvent,
  RegisteredEvent,
  RegisterRejectedEvent,
  ResourceRemovedEvent,
  RestartedEvent,
  SimEvent,
  SimEventOf,
  SimEventType,
  StreamEndedEvent,
} from './sim-events';
export { createApiServer } from './api-server/api-server';
export type {
  ApiRequestAttributes,
  ApiServer,
  ApiServerOptions,
  ResourceApiVersion,
} from './api-server/api-server';
export { writeKubeconfig } from './api-server/write-kubeconfig';
export type { KubeconfigOptions } from './api-server/write-kubeconfig';
export { recordEvent } from './api-server/record-event';
export type { EventRecord } from './api-server/record-event';
export { ApiError } from './api-server/api-errors';
export type { ApiStatus, StatusCause } from './api-server/api-errors';
export type {
  KubeObject,
  ListOptions,
  ObjectStore,
  WatchEvent,
  WriteOptions,
} from './api-server/object-store';
export { createDraPlayground } from './playground/dra-playground';
export type { DraPlayground, DraPlaygroundNode, DraPlaygroundOptions } from './playground/dra-playground';
export type { ApiFaults } from './playground/api-faults';
export type { PlaygroundNodeLayout } from './playground/playground-nodes';
export { ContainerDevicesAnnotation } from './playground/pod-writes';
export type { ContainerDevices } from './playground/container-devices';
export type { ContainerClaimRef } from './playground/pod-object';
export type { ResolvedCdiEdits, ResolvedDeviceNode, ResolvedMount } from './playground/cdi-resolver';
export type { NodeKubelet } from './playground/node-kubelet';
export type { SchedulerEvent } from './scheduler/scheduler';
export type { DraApiServerConnection, ResourceClaimObject } from './dra/dra-api-client';
export type {
  DraConnectionEvent,
  DraDeviceHealth,
  DraEvent,
  DraHealthEvent,
  DraPreparedEvent,
  DraPrepareFailedEvent,
  DraRegisteredEvent,
  DraUnpreparedEvent,
  PreparedClaim,
  PreparedDevice,
  SlicesDeletedEvent,
} from './dra/dra-events';
export type { DraClaimRef, DraEndpointState, DraPod, DraState } from './dra/dra-manager';
export { createScheduler } from './scheduler/scheduler';
export type { Scheduler, SchedulerOptions } from './scheduler/scheduler';
export { createDeviceSelectorCompiler } from './scheduler/cel/device-selector-compiler';
export type { DeviceSelectorCompiler } from './scheduler/cel/device-selector-compiler';
export { createTestPlugin } from './testing/test-plugin';
export type { TestPlugin, TestPluginOptions } from './testing/test-plugin';
export { createFakeClock } from './testing/fake-clock';
export type { FakeClock } from './testing/fake-clock';
export { runConformance } from './conformance/run-conformance';
export type { ConformanceOptions } from './conformance/run-conformance';
export type { CheckStatus, ConformanceCheck, ConformanceReport } from './conformance/conformance-check';
export { runDraConformance } from './conformance/dra/run-dra-conformance';
export type { DraConformanceOptions, DraConformanceReady } from './conformance/dra/run-dra-conformance';
