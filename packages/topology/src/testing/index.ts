/**
 * Test helpers of @kdp/topology: a fake sysfs tree and a ready two-socket machine, for this package's and
 * the plugins' tests, and the one temporary-directory helper every package's tests share.
 *
 * @packageDocumentation
 * @module @kdp/topology/testing
 */

export { createSysfsFixture } from './sysfs-fixture';
export type { PciDeviceSpec } from './fixture-pci-bus';
export type { ClassDeviceSpec, NumaNodeSpec, SysfsFixture } from './sysfs-fixture';
export { addTwoSocketMachine } from './two-socket-machine';
export type { TwoSocketMachine } from './two-socket-machine';
export { createTempDir } from './temp-dir';
export type { TempDir } from './temp-dir';
export type { FastCheckModule } from './corrupt-tree';
export type { EscapeSentinel, SentinelEntry } from './escape-sentinel';
export { fuzzDiscoverScan } from './fuzz-discover-scan';
export type {
  CommandOutcome,
  DiscoverScanFuzzOptions,
  DiscoverScanFuzzReport,
  FuzzMachine,
} from './fuzz-discover-scan';
export { ESCAPE_LINK, fuzzDiscoverConfig } from './fuzz-discover-config';
export type { DiscoverConfigFuzzOptions, DiscoverConfigFuzzReport } from './fuzz-discover-config';
export { fuzzParameters } from './fuzz-parameters';
export type { FuzzParameters } from './fuzz-parameters';
