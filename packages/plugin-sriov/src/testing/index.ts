// Test helpers of @kdp/plugin-sriov (`@kdp/plugin-sriov/testing`): SR-IOV PFs and VFs on a topology sysfs
// fixture and the two-PF node and upstream-format configuration the demo and the end-to-end suites use. This
// package's own specs import the modules directly.
export {
  addDefaultRouteNic,
  addSriovPf,
  addTwoPfNode,
  UPSTREAM_CONFIG,
  type FixturePf,
  type FixtureVf,
} from './sriov-node';
// The claim configuration kinds of the DRA driver, from which deploy/ generates its admission policy.
export { vfConfigKind } from '../dra/vf-claim-config';
