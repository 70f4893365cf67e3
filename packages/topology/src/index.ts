// Public API of @kdp/topology: sysfs reading, NUMA and PCIe locality, TopologyInfo, preferred allocation.

export { choosePreferredAllocation } from './allocation/choose-preferred-allocation';
export type { DeviceLocality, PreferredAllocationInput } from './allocation/allocation-types';
export {
  allocationCost,
  compareAllocationCost,
  numaDistance,
  numaDistanceSum,
} from './allocation/allocation-cost';
export type { AllocationCost } from './allocation/allocation-cost';
export {
  cleanNumaNodes,
  cleanPciePath,
  localityRankCost,
  numaKey,
  rankLocality,
} from './allocation/locality-rank';
export type { LocalityRank } from './allocation/locality-rank';
