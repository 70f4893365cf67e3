// Public API of @kdp/plugin-infiniband: the plugin definition (run by its binary and by kdp-device-plugins),
// RDMA discovery from sysfs and its change probe, the k8s-rdma-shared-dev-plugin configuration, resource planning
// and preferred allocation.
export { infinibandPlugin } from './plugin';
export { DEFAULT_CONFIG_LIST, rdmaConfigSchema, resourceNameOf } from './config';
export type { RdmaConfig, RdmaResourceConfig, RdmaSelectors } from './config';
export { readRdmaInventory } from './scan/read-rdma-inventory';
export { rdmaChangeProbe } from './scan/rdma-change-probe';
export type {
  RdmaCharDevice,
  RdmaCharKind,
  RdmaHca,
  RdmaInventory,
  RdmaInventoryOptions,
  RdmaPort,
} from './scan/read-rdma-inventory';
export {
  isPortUp,
  normalizeLinkLayer,
  parsePortAttribute,
  PORT_PHYS_STATE_LINK_UP,
  PORT_STATE_ACTIVE,
} from './scan/port-state';
export type { PortAttribute } from './scan/port-state';
export { matchSelectors } from './resources/match-selectors';
export type { SelectorMatch } from './resources/match-selectors';
export { hcaHealth } from './resources/hca-health';
export type { HcaHealth } from './resources/hca-health';
export { hcaDeviceNodes } from './resources/hca-device-nodes';
export { configWarnings, planResources } from './resources/plan-resources';
export { createSharedPreferredAllocation } from './resources/shared-preferred-allocation';
export type { SharedLocalityPayload } from './resources/shared-preferred-allocation';
export type { PlanOptions, RdmaPayload, ResourcePlan } from './resources/plan-resources';
