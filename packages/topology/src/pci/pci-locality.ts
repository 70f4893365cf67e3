import type { DeviceLocality } from '../allocation/allocation-types';
import { rankLocality } from '../allocation/locality-rank';
import type { LocalityRank } from '../allocation/locality-rank';
import type { PciDevice } from './read-pci-device';

/** The locality of a PCI function as the allocation policy takes it. */
export function pciDeviceLocality(device: PciDevice): DeviceLocality {
  return {
    numaNodes: device.numaNode === undefined ? [] : [device.numaNode],
    pciePath: device.pciePath,
  };
}

/** Ranks two PCI functions: same switch < same root port < same NUMA node < other NUMA node (or unknown). */
export function rankPciLocality(a: PciDevice, b: PciDevice): LocalityRank {
  return rankLocality(pciDeviceLocality(a), pciDeviceLocality(b));
}
