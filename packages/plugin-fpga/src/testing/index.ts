// Test helpers of @kdp/plugin-fpga (`@kdp/plugin-fpga/testing`): a fixture FPGA machine (Intel DFL/OPAE cards,
// Alveo cards) and a fake programming command, for this package's tests, the demo and the end-to-end suites.
export { addDflCard, createFpgaFixture, IF_ID, NLB0, NLB3, U200 } from './create-fpga-fixture';
export type { AlveoSpec, FpgaFixture, IntelCardSpec } from './create-fpga-fixture';
export { programmingConfig, setFakeMode, writeFakeProgrammer } from './fake-programmer';
export type { FakeProgrammer } from './fake-programmer';
