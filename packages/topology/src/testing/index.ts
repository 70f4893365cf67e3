/**
 * Test helpers of @kdp/topology: a fake sysfs tree and a ready two-socket machine, for this package's and
 * the plugins' tests.
 *
 * @packageDocumentation
 * @module @kdp/topology/testing
 */

export { createSysfsFixture } from './sysfs-fixture';
export type { ClassDeviceSpec, NumaNodeSpec, PciDeviceSpec, SysfsFixture } from './sysfs-fixture';
export { addTwoSocketMachine } from './two-socket-machine';
export type { TwoSocketMachine } from './two-socket-machine';
