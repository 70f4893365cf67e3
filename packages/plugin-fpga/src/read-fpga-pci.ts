import { isPciAddress, readPciDevice, type NumaTopology, type Sysfs } from '@kdp/topology';
import type { FpgaPciInfo } from './fpga-model';

/** The PCI function a sysfs device directory sits under: the last PCI address in its resolved path. */
export function pciAddressOfPath(path: string): string | undefined {
  const parts = path.split('/');
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i] as string;
    if (isPciAddress(part)) return part;
  }
  return undefined;
}

/** Reads the PCI facts (IDs, VF link, NUMA, PCIe path) of one function; warnings go to `warnings`. */
export async function readFpgaPci(
  sysfs: Sysfs,
  address: string,
  numa: NumaTopology,
  warnings: string[],
): Promise<FpgaPciInfo | undefined> {
  const read = await readPciDevice(sysfs, address, numa);
  warnings.push(...read.warnings);
  const device = read.device;
  if (device === undefined) return undefined;
  return {
    address,
    ...(device.vendor !== undefined ? { vendor: device.vendor } : {}),
    ...(device.device !== undefined ? { device: device.device } : {}),
    ...(device.physfn !== undefined ? { physfn: device.physfn } : {}),
    numaNodes: device.numaNode === undefined ? [] : [device.numaNode],
    pciePath: device.pciePath,
  };
}
