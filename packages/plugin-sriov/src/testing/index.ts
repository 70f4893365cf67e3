// Test helpers of @kdp/plugin-sriov (`@kdp/plugin-sriov/testing`): SR-IOV PFs and VFs on a topology sysfs
// fixture, the two-PF node and upstream-format configuration the specs, the demo and the end-to-end suites use,
// and a scanned function for unit tests.
export {
  addDefaultRouteNic,
  addLargeSriovNode,
  addSriovPf,
  addSriovVf,
  addTwoPfNode,
  bindDriver,
  emulateUevents,
  LARGE_SRIOV_CONFIG,
  raiseUevent,
  removeSriovVf,
  setCarrier,
  UPSTREAM_CONFIG,
  type FixturePf,
  type FixtureVf,
  type LargeSriovNodeOptions,
} from './sriov-node';
export { testVf, type TestVfOverrides } from './test-vf';
