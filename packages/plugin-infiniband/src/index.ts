// Public API of @kdp/plugin-infiniband: RDMA discovery from sysfs, the k8s-rdma-shared-dev-plugin
// configuration, shared and exclusive resource planning, and the `infiniband-device-plugin` CLI.

export { BINARY, runInfinibandCli, VERSION } from './infiniband-cli';
export type { InfinibandCliIo } from './infiniband-cli';
export { discoverInfiniband } from './discover-infiniband';
export { serveInfiniband } from './serve-infiniband';
export { createRdmaScanner } from './create-rdma-scanner';
export type { RdmaScanner, RdmaScannerOptions } from './create-rdma-scanner';
export { readRdmaInventory } from './read-rdma-inventory';
export type {
  RdmaCharDevice,
  RdmaCharKind,
  RdmaHca,
  RdmaInventory,
  RdmaInventoryOptions,
  RdmaPort,
} from './read-rdma-inventory';
export {
  isPortUp,
  normalizeLinkLayer,
  parsePortAttribute,
  PORT_PHYS_STATE_LINK_UP,
  PORT_STATE_ACTIVE,
} from './port-state';
export type { PortAttribute } from './port-state';
export { DEFAULT_CONFIG_LIST, rdmaConfigSchema, resourceNameOf } from './rdma-config';
export type { RdmaConfig, RdmaResourceConfig, RdmaSelectors } from './rdma-config';
export { matchSelectors } from './match-selectors';
export type { SelectorMatch } from './match-selectors';
export { hcaHealth } from './hca-health';
export type { HcaHealth } from './hca-health';
export { hcaDeviceNodes } from './hca-device-nodes';
export { configWarnings, planResources } from './plan-resources';
export type { PlannedResource, RdmaPayload, ResourcePlan } from './plan-resources';
