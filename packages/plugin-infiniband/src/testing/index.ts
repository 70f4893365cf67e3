// Test helpers of @kdp/plugin-infiniband (`@kdp/plugin-infiniband/testing`): a fixture RDMA machine and the
// upstream example configuration, for this package's tests, the demo and the end-to-end suites.
export {
  addRdmaCore,
  addRdmaDevice,
  CONNECTX3,
  createRdmaMachine,
  setPortState,
  UPSTREAM_CONFIG_JSON,
} from './rdma-machine';
export type { RdmaDeviceSpec, RdmaPortSpec } from './rdma-machine';
