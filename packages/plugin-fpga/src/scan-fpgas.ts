import { createSysfs, enumeratePciDevices } from '@kdp/topology';
import type { FpgaScan } from './fpga-model';
import { scanAmdCards } from './scan-amd-cards';
import { scanIntelPorts } from './scan-intel-ports';

/** Options of {@link scanFpgas}. */
export interface ScanFpgasOptions {
  /** The `--sysfs-root` directory. */
  readonly sysfsRoot: string;
  /** The `--dev-root` directory (device nodes are checked there). */
  readonly devRoot: string;
}

/** PCI class of processing accelerators, which Intel's FPGA functions carry. */
const ACCELERATOR_CLASS = '0x120000';

/**
 * One full scan: Intel DFL and OPAE ports, AMD/Xilinx cards, and every Intel accelerator-class PCI function
 * that no DFL/OPAE container claimed (listed in `excluded`). Never throws.
 */
export async function scanFpgas(options: ScanFpgasOptions): Promise<FpgaScan> {
  const sysfs = createSysfs({ root: options.sysfsRoot });
  const pci = await enumeratePciDevices(sysfs);
  const [intel, amd] = await Promise.all([
    scanIntelPorts({ sysfs, devRoot: options.devRoot, numa: pci.numa }),
    scanAmdCards({ sysfs, devRoot: options.devRoot, pciDevices: pci.devices }),
  ]);
  const unclaimed = pci.devices
    .filter((d) => d.vendor === '0x8086' && d.class === ACCELERATOR_CLASS && !intel.claimed.has(d.address))
    .map((d) => ({
      path: `/sys/bus/pci/devices/${d.address}`,
      reason: `Intel accelerator ${d.vendor}:${d.device ?? '?'} (driver ${d.driver ?? 'none'}) has no DFL fpga_region or OPAE intel-fpga-dev container`,
    }));
  return {
    intel: intel.ports,
    amd: amd.cards,
    excluded: [...intel.excluded, ...amd.excluded, ...unclaimed],
    warnings: [...pci.warnings, ...intel.warnings, ...amd.warnings],
  };
}
