// Test helpers of @kdp/plugin-infiniband (`@kdp/plugin-infiniband/testing`): a fixture RDMA machine for the demo
// and the end-to-end suites. This package's own specs and benchmark import the modules directly.
export { addRdmaCore, addRdmaDevice, CONNECTX3, createRdmaMachine } from './rdma-machine';
export type { RdmaDeviceSpec, RdmaPortSpec } from './rdma-machine';
