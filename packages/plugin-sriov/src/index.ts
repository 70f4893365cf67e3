// Public API of @kdp/plugin-sriov: the plugin definition (run by its binary and by kdp-device-plugins), NIC
// discovery, pool assignment and the sriov-network-device-plugin compatible configuration and outputs.
export { sriovPlugin } from './plugin';
export {
  configWarnings,
  DEFAULT_RESOURCE_PREFIX,
  poolResourceName,
  poolSelectors,
  sriovConfigSchema,
  REFUSED_KEYS,
  type SriovConfig,
  type SriovPool,
  type SriovSelector,
} from './config';
export { createNicScanCache, kindOfClass, scanNics, type NicScanCache } from './scan/scan-nics';
export { nicChangeProbe } from './scan/nic-change-probe';
export { readUeventSupport, UEVENT_SEQNUM } from './scan/read-uevent-support';
export { functionPath, type FunctionKind, type NicFunction, type NodeScan } from './scan/nic-function';
export {
  parseDefaultRouteInterfaces,
  readDefaultRouteInterfaces,
} from './scan/read-default-route-interfaces';
export { RDMA_CHAR_DEVICE_CLASSES, RDMA_CM, readRdmaCharDevices } from './scan/read-rdma-char-devices';
export { formatVfRange, parseVfRange, type VfRangeParse, type VfRangeSelector } from './resources/vf-range';
export { matchSelector, type SelectorVerdict } from './resources/match-selector';
export {
  assignPools,
  poolIndex,
  type Assignment,
  type AssignPoolsOptions,
  type PooledFunction,
  type PoolAssignment,
} from './resources/assign-pools';
export {
  poolResources,
  toPluginDevice,
  type PoolResourceOptions,
  type SriovScan,
} from './resources/pool-resources';
export {
  containerAllocation,
  deviceContribution,
  envVarName,
  rdmaDevicesOf,
  type DeviceContribution,
  type HostFacts,
} from './allocate/container-allocation';
export {
  DEFAULT_DEVINFO_DIR,
  DEVICE_INFO_VERSION,
  deviceInfoFileName,
  pciDeviceInfo,
} from './allocate/device-info';
export { createDeviceInfoStore, type DeviceInfoStore } from './allocate/device-info-store';
export { goJson, goString, type GoJsonValue } from './allocate/go-json';
export { preferVfs, type PreferVfsInput, type VfPlacement } from './allocate/prefer-vfs';
