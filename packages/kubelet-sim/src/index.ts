/**
 * A simulated kubelet device manager, its events, a conformance suite for device plugins, a test plugin
 * and the `kubelet-sim` CLI.
 *
 * @packageDocumentation
 * @module @kdp/kubelet-sim
 */

export { systemClock } from '@kdp/base';
export type { Clock } from '@kdp/base';
export { createKubeletSim } from './kubelet-sim';
export type {
  AdmitRequest,
  Admission,
  KubeletSim,
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
export { parseCheckpoint } from './checkpoint';
export type { CheckpointData, CheckpointFile, PodDeviceEntry } from './checkpoint';
export { createTestPlugin, defaultTestDevices } from './testing/test-plugin';
export type { TestPlugin, TestPluginOptions } from './testing/test-plugin';
export { createFakeClock } from './testing/fake-clock';
export type { FakeClock } from './testing/fake-clock';
export { runConformance } from './conformance/run-conformance';
export type { ConformanceOptions } from './conformance/run-conformance';
export type { CheckStatus, ConformanceCheck, ConformanceReport } from './conformance/conformance-check';
export { runCli } from './cli/run-cli';
export type { CliIo } from './cli/run-cli';
