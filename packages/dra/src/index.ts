/**
 * The node side of a Dynamic Resource Allocation driver, the TypeScript counterpart of Go's
 * `k8s.io/dynamic-resource-allocation/kubeletplugin`: plugin-watcher registration, the DRAPlugin service (v1 and
 * v1beta1) with the kubelet's prepare / unprepare rules, a checkpoint with the node's boot ID, per-claim CDI spec
 * files, the NodeWatchResources health stream and the ResourceSlice publisher, offered to plugins as one serve mode
(`serve --mode dra`). The package README describes how it works.
 *
 * @packageDocumentation
 * @module @kdp/dra
 */

export { createDraServeMode } from './dra-serve-mode';
export type { DraServeModeEvent, DraServeModeOptions } from './dra-serve-mode';
export { toSliceDevice } from './dra-serve-mode-devices';
export type { DraPluginEvent } from './dra-plugin';
export type { SlicePublisherEvent } from './slice-publisher-event';
export type { SliceAttributeValue, SliceDevice, SliceDeviceTaint } from './pool-slices';
export { claimConfigPolicy, claimConfigPolicyName } from './claim-config-policy';
export type { AdmissionObject } from './claim-config-policy';
export { ConfigFieldError, createClaimConfigDecoder } from './decode-claim-config';
export { draDeviceName, envSuffix } from './dra-serve-mode-devices';
