// Public API of @kdp/plugin-sriov: the CLI, discovery, pool assignment and the upstream-compatible outputs.

export { runSriovCli, SRIOV_PLUGIN_VERSION } from './run-sriov-cli';
export type { SriovCliOverrides } from './run-sriov-cli';
export { serveSriov } from './serve-sriov';
export type { ServeSriovOptions } from './serve-sriov';
export { discoverSriov } from './discover-sriov';
export type { DiscoverSriovOptions } from './discover-sriov';
export {
  configWarnings,
  DEFAULT_RESOURCE_PREFIX,
  poolResourceName,
  poolSelectors,
  sriovConfigSchema,
  UNSUPPORTED_SELECTORS,
} from './sriov-config';
export type { SriovConfig, SriovPool, SriovSelector } from './sriov-config';
export { formatVfRange, parseVfRange } from './vf-range';
export type { VfRangeParse, VfRangeSelector } from './vf-range';
export { createBlockingSysfs } from './blocking-sysfs';
export { createScanReaders, kindOfClass, scanNode } from './scan-node';
export type { ScanNodeOptions } from './scan-node';
export { functionPath } from './nic-function';
export type { FunctionKind, NicFunction, NodeScan, SkippedFunction } from './nic-function';
export { matchSelector } from './match-selector';
export type { SelectorVerdict } from './match-selector';
export { assignPools, poolIndex } from './assign-pools';
export type { Assignment, AssignPoolsOptions, PooledFunction, PoolAssignment } from './assign-pools';
export { containerAllocation, deviceContribution, envVarName } from './sriov-allocation';
export type { DeviceContribution, HostFacts } from './sriov-allocation';
export { DEFAULT_DEVINFO_DIR, DEVICE_INFO_VERSION, deviceInfoFileName, pciDeviceInfo } from './device-info';
export { createDeviceInfoStore } from './device-info-store';
export type { DeviceInfoStore } from './device-info-store';
export { goJson, goString } from './go-json';
export type { GoJsonValue } from './go-json';
export { preferVfs } from './prefer-vfs';
export type { PreferVfsInput, VfPlacement } from './prefer-vfs';
export { parseDefaultRouteInterfaces, readDefaultRouteInterfaces } from './default-route';
export { RDMA_CM, readRdmaCharDevices } from './rdma-char-devices';
export { poolDevices, toPluginDevice, withVanished } from './pool-devices';
export type { SriovPayload } from './pool-devices';
