/**
 * Host access with confined roots (sysfs, /dev, procfs), NUMA and PCIe locality, TopologyInfo and the preferred-allocation policy.
 * Test fixtures live in the second entry point `@kdp/topology/testing`.
 *
 * @packageDocumentation
 * @module @kdp/topology
 */

export { choosePreferredAllocation } from './allocation/choose-preferred-allocation';
export type { DeviceLocality, PreferredAllocationInput } from './allocation/allocation-types';

export { createHost } from './host/create-host';
export type { Host, HostRoots } from './host/create-host';
export { createDevfs } from './host/create-devfs';
export type { Devfs, DevNodeState } from './host/create-devfs';
export { globToRegExp, hasGlobSyntax } from './host/glob-pattern';
export type { GlobOptions } from './host/glob-pattern';

export { createSysfs } from './sysfs/create-sysfs';
export type { Sysfs, SysfsFailure, SysfsLocation, SysfsOptions } from './sysfs/create-sysfs';
export { parseSysfsInt } from './sysfs/sysfs-number';

export { readNumaTopology } from './numa/read-numa-topology';
export type { NumaNode, NumaTopology } from './numa/read-numa-topology';

export { isPciAddress, parsePciAddress } from './pci/pci-address';
export { nearestPciFunction, type PciAncestor } from './pci/nearest-pci-function';
export type { PciAddress } from './pci/pci-address';
export { readPciDevice } from './pci/read-pci-device';
export type { NumaSource, PciDevice, PciDeviceRead, PciIdentity, SriovInfo } from './pci/read-pci-device';
export { enumeratePciDevices } from './pci/enumerate-pci-devices';
export type { PciEnumeration, PciEnumerationOptions } from './pci/enumerate-pci-devices';
// Used by the snippet of @kdp/core's author guide (packages/core/README.md), which e2e/docs type-checks.
export { pciDeviceLocality } from './pci/pci-locality';
export { scanPciFunctions } from './pci/scan-pci-functions';
export type {
  PciFunction,
  PciFunctionScan,
  PciSriovCapability,
  ScanPciFunctionsOptions,
} from './pci/scan-pci-functions';
