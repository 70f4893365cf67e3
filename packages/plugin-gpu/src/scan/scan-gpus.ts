import { enumeratePciDevices, type Host, type PciDevice } from '@kdp/topology';
import type { Gpu, GpuScan } from './gpu';
import { readKfdTopology } from './read-kfd-topology';
import type { ScanContext } from './scan-context';
import { scanAmd } from './scan-amd';
import { scanIntel } from './scan-intel';
import { readMigMinors, scanNvidia } from './scan-nvidia';

const VENDORS = new Set(['0x10de', '0x1002', '0x8086']);
/** VGA (0x0300), 3D (0x0302) and other display (0x0380) controllers. */
const GPU_CLASS = /^0x03(00|02|80)/;

/** Whether a PCI function is a GPU candidate of one of the three vendors. */
export function isGpuCandidate(pci: PciDevice): boolean {
  return (
    pci.vendor !== undefined &&
    VENDORS.has(pci.vendor) &&
    pci.class !== undefined &&
    GPU_CLASS.test(pci.class)
  );
}

/** One scan of the machine: every GPU candidate becomes GPUs (with health problems) or an `excluded` entry. */
export async function scanGpus(host: Host): Promise<GpuScan> {
  const ctx: ScanContext = { ...host, excluded: [], warnings: [], procfsDirs: [] };
  const pci = await enumeratePciDevices(host.sysfs);
  ctx.warnings.push(...pci.warnings);
  const candidates = pci.devices.filter(isGpuCandidate);
  const vendors = new Set(candidates.map((c) => c.vendor));
  const migMinors = vendors.has('0x10de') ? await readMigMinors(ctx) : undefined;
  const kfd = vendors.has('0x1002') ? await readKfdTopology(host.sysfs, ctx.warnings) : undefined;
  const gpus: Gpu[] = [];
  for (const candidate of candidates) {
    try {
      if (candidate.vendor === '0x10de') gpus.push(...(await scanNvidia(ctx, candidate, migMinors)));
      else if (candidate.vendor === '0x1002') gpus.push(...(await scanAmd(ctx, candidate, kfd)));
      else gpus.push(...(await scanIntel(ctx, candidate)));
    } catch (error) {
      ctx.warnings.push(`${candidate.address}: ${String(error)}; skipped`);
    }
  }
  return {
    gpus,
    excluded: ctx.excluded,
    warnings: ctx.warnings,
    candidates: candidates.map((c) => ({
      address: c.address,
      vendor: c.vendor ?? '',
      sriov: c.sriov !== undefined,
    })),
    procfsDirs: ctx.procfsDirs,
  };
}
