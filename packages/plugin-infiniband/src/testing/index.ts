// Test helpers of @kdp/plugin-infiniband (`@kdp/plugin-infiniband/testing`): fixture RDMA machines (a mixed one,
// a many-HCA one for the benchmark), hot-plug, and the upstream example configuration, for this package's tests,
// its benchmark, the demo and the end-to-end suites.
export {
  addRdmaCore,
  addRdmaDevice,
  CONNECTX3,
  createRdmaMachine,
  rdmaCharNodes,
  setPortState,
  UPSTREAM_CONFIG_JSON,
} from './rdma-machine';
export type { RdmaCharNode, RdmaDeviceSpec, RdmaPortSpec } from './rdma-machine';
export { createRdmaScaleMachine } from './create-rdma-scale-machine';
export type { RdmaScaleMachine, RdmaScaleMachineOptions } from './create-rdma-scale-machine';
export { removeRdmaDevice, restoreRdmaDevice } from './remove-rdma-device';
