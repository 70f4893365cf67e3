// Test helpers of @kdp/topology, for this package's and the plugins' tests (import '@kdp/topology/testing').

export { createSysfsFixture } from './sysfs-fixture';
export type { ClassDeviceSpec, NumaNodeSpec, PciDeviceSpec, SysfsFixture } from './sysfs-fixture';
export { addTwoSocketMachine } from './two-socket-machine';
export type { TwoSocketMachine } from './two-socket-machine';
