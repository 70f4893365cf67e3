/**
 * The node side of a Dynamic Resource Allocation driver, the TypeScript counterpart of Go's
 * `k8s.io/dynamic-resource-allocation/kubeletplugin`: plugin-watcher registration, the DRAPlugin service (v1 and
 * v1beta1) with the kubelet's prepare / unprepare rules, a checkpoint with the node's boot ID, per-claim CDI spec
 * files, the NodeWatchResources health stream and the ResourceSlice publisher. The author guide is the package README.
 *
 * @packageDocumentation
 * @module @kdp/dra
 */

export { createDraPlugin, DRA_HEALTH_SERVICES, DRA_PLUGIN_SERVICES, DRA_PLUGIN_TYPE } from './dra-plugin';
export type { DraPlugin, DraPluginEvent, DraPluginOptions } from './dra-plugin';
export { createDraServeMode, DRA_DRIVER_DOMAIN } from './dra-serve-mode';
export type { DraServeModeEvent, DraServeModeOptions } from './dra-serve-mode';
export { draDeviceName, draPoolName, toSliceDevice } from './dra-serve-mode-devices';
export { createClaimPreparer } from './claim-preparer';
export type {
  ClaimCdiOptions,
  ClaimOutcome,
  ClaimPreparer,
  ClaimPreparerOptions,
  DraDriver,
  PreparedDevice,
  PrepareInput,
  PrepareOutput,
  UnprepareInput,
} from './claim-preparer';
export { checkAllocation, selectsNode } from './check-allocation';
export type { CheckedAllocation, ClaimRef, NodeIdentity } from './check-allocation';
export { CHECKPOINT_VERSION, createCheckpoint, readBootId } from './checkpoint';
export type {
  Checkpoint,
  CheckpointOptions,
  LoadedCheckpoint,
  PreparedClaimRecord,
  PreparedDeviceRecord,
} from './checkpoint';
export { createKubeClaimReader } from './claim-reader';
export type { ClaimReader, KubeClaimReaderOptions } from './claim-reader';
export { createHealthService, DEFAULT_HEALTH_TIMEOUT_SECONDS } from './health-service';
export type {
  DeviceHealthReport,
  DraDeviceHealth,
  HealthService,
  HealthServiceOptions,
  HealthSource,
} from './health-service';
export { DRA_PLUGINS_DIR, draSocketPath, registrationSocketPath } from './socket-names';
export { toResourceClaim } from './resource-claim';
export type {
  AllocationResult,
  DeviceAllocationConfiguration,
  DeviceAllocationResult,
  DeviceRequestAllocationResult,
  NodeSelector,
  NodeSelectorRequirement,
  NodeSelectorTerm,
  OpaqueDeviceConfiguration,
  ResourceClaim,
  ResourceClaimConsumerReference,
  ResourceClaimMetadata,
  ResourceClaimStatus,
} from './resource-claim';
export { createSlicePublisher } from './slice-publisher';
export type { SlicePublisher, SlicePublisherEvent, SlicePublisherOptions } from './slice-publisher';
export {
  compareDeviceNames,
  deviceKey,
  MAX_DEVICES_PER_SLICE,
  PCI_BUS_ID_ATTRIBUTE,
  PCIE_ROOT_ATTRIBUTE,
  splitPool,
  toApiDevice,
} from './pool-slices';
export type {
  ApiDevice,
  ApiDeviceAttribute,
  SliceAttributeValue,
  SliceDevice,
  SlicePools,
} from './pool-slices';
export { canonicalQuantity, quantitiesEqual } from './canonical-quantity';
