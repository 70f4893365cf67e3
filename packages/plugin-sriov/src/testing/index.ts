// Test helpers of @kdp/plugin-sriov (`@kdp/plugin-sriov/testing`): SR-IOV PFs and VFs on a topology sysfs
// fixture, the two-PF node and upstream-format configuration the specs, the demo and the end-to-end suites use,
// and a scanned function for unit tests.
export {
  addDefaultRouteNic,
  addSriovPf,
  addSriovVf,
  addTwoPfNode,
  bindDriver,
  removeSriovVf,
  setCarrier,
  UPSTREAM_CONFIG,
  type FixturePf,
  type FixtureVf,
} from './sriov-node';
export { testVf, type TestVfOverrides } from './test-vf';
