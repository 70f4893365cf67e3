// Test helpers of @kdp/plugin-fpga (`@kdp/plugin-fpga/testing`): a fixture FPGA machine (Intel DFL/OPAE cards,
// Alveo cards) for the demo and the end-to-end suites. This package's own specs import the modules directly.
export { addDflCard, createFpgaFixture, IF_ID, NLB0 } from './create-fpga-fixture';
export type { AlveoSpec, FpgaFixture, IntelCardSpec } from './create-fpga-fixture';
// The claim configuration kinds of the DRA driver, from which deploy/ generates its admission policy.
export { fpgaConfigKind } from '../dra/fpga-claim-config';
