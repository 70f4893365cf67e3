import type { DeviceLocality } from '../allocation/allocation-types';
import type { PciDevice } from './read-pci-device';

/** The locality of a PCI function as the allocation policy takes it. */
export function pciDeviceLocality(device: PciDevice): DeviceLocality {
  return {
    numaNodes: device.numaNode === undefined ? [] : [device.numaNode],
    pciePath: device.pciePath,
  };
}
