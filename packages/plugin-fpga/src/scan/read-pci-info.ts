import { isPciAddress, readPciDevice, type NumaTopology, type PciDevice, type Sysfs } from '@kdp/topology';

/** PCI facts of the function an FPGA device sits on. */
export interface FpgaPciInfo {
  readonly address: string;
  readonly vendor?: string;
  readonly device?: string;
  /** The PF's address when this function is an SR-IOV VF. */
  readonly physfn?: string;
  readonly numaNodes: readonly number[];
  readonly pciePath: readonly string[];
}

/** The PCI function a sysfs device directory sits under: the last PCI address in its resolved path. */
export function pciAddressOfPath(path: string): string | undefined {
  return path
    .split('/')
    .reverse()
    .find((part) => isPciAddress(part));
}

/** The facts of one enumerated PCI function that devices carry. */
export function pciInfoOf(device: PciDevice): FpgaPciInfo {
  return {
    address: device.address,
    ...(device.vendor !== undefined ? { vendor: device.vendor } : {}),
    ...(device.device !== undefined ? { device: device.device } : {}),
    ...(device.physfn !== undefined ? { physfn: device.physfn } : {}),
    numaNodes: device.numaNode === undefined ? [] : [device.numaNode],
    pciePath: device.pciePath,
  };
}

/** Reads the PCI facts (IDs, VF link, NUMA, PCIe path) of one function; warnings go to `warnings`. */
export async function readPciInfo(
  sysfs: Sysfs,
  address: string,
  numa: NumaTopology,
  warnings: string[],
): Promise<FpgaPciInfo | undefined> {
  const read = await readPciDevice(sysfs, address, numa);
  warnings.push(...read.warnings);
  return read.device === undefined ? undefined : pciInfoOf(read.device);
}
