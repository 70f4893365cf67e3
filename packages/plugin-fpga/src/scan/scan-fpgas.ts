import type { ExcludedDevice } from '@kdp/core/plugin';
import { enumeratePciDevices, type Host, type PciIdentity } from '@kdp/topology';
import { AMD_FPGA_VENDORS, scanAmdCards, type AmdCard } from './scan-amd-cards';
import { scanIntelPorts, type IntelPort } from './scan-intel-ports';

/** Everything one scan found: Intel ports, AMD cards, candidates left out and why, and warnings. */
export interface FpgaScan {
  readonly intel: readonly IntelPort[];
  readonly amd: readonly AmdCard[];
  readonly excluded: readonly ExcludedDevice[];
  readonly warnings: readonly string[];
  /** NUMA node → node → distance, for preferred allocations; absent: nodes are only told apart, not ranked. */
  readonly numaDistances?: ReadonlyMap<number, ReadonlyMap<number, number>>;
}

/** PCI class of processing accelerators, which Intel's FPGA functions carry. */
const ACCELERATOR_CLASS = '0x120000';

/** An Intel accelerator-class function: a DFL/OPAE port's device, or one left `excluded` when none claims it. */
const isIntelAccelerator = (pci: PciIdentity): boolean =>
  pci.vendor === '0x8086' && pci.class === ACCELERATOR_CLASS;

/** The PCI functions a scan reads in full: Intel accelerators and the AMD/Xilinx cards' vendors. */
const isFpgaCandidate = (pci: PciIdentity): boolean =>
  isIntelAccelerator(pci) || (pci.vendor !== undefined && AMD_FPGA_VENDORS.includes(pci.vendor));

/**
 * One full scan through the confined host: Intel DFL and OPAE ports, AMD/Xilinx cards, and every Intel
 * accelerator-class PCI function that no DFL/OPAE container claimed (listed in `excluded`). Never throws.
 */
export async function scanFpgas(host: Host): Promise<FpgaScan> {
  const pci = await enumeratePciDevices(host.sysfs, { select: isFpgaCandidate });
  const [intel, amd] = await Promise.all([scanIntelPorts(host, pci.numa), scanAmdCards(host, pci.devices)]);
  const unclaimed = pci.devices
    .filter((d) => isIntelAccelerator(d) && !intel.claimed.has(d.address))
    .map((d) => ({
      path: `/sys/bus/pci/devices/${d.address}`,
      reason: `Intel accelerator ${d.vendor}:${d.device ?? '?'} (driver ${d.driver ?? 'none'}) has no DFL fpga_region or OPAE intel-fpga-dev container`,
    }));
  return {
    intel: intel.ports,
    amd: amd.cards,
    excluded: [...intel.excluded, ...amd.excluded, ...unclaimed],
    warnings: [...pci.warnings, ...intel.warnings, ...amd.warnings],
    numaDistances: pci.numa.distances,
  };
}
