import { enumeratePciDevices, type Host, type PciIdentity } from '@kdp/topology';
import type { Gpu, GpuScan } from './gpu';
import type { ScanContext } from './scan-context';
import { scanAmdGpus } from './scan-amd';
import { scanIntel } from './scan-intel';
import { readMigMinors, scanNvidia } from './scan-nvidia';

const AMD = '0x1002';
const VENDORS = new Set(['0x10de', AMD, '0x8086']);
/** VGA (0x0300), 3D (0x0302) and other display (0x0380) controllers. */
const GPU_CLASS = /^0x03(00|02|80)/;
/** Processing accelerators (0x1200): AMD Instinct MI300X/A, MI325X, MI350X, MI355X. */
const ACCELERATOR_CLASS = /^0x1200/;

/**
 * Whether a PCI function is a GPU candidate: a display controller of one of the three vendors, an AMD processing
 * accelerator (class 0x1200, listed under `excluded` when amdgpu is not bound), or any function bound to amdgpu.
 */
export function isGpuCandidate(pci: PciIdentity): boolean {
  if (pci.driver === 'amdgpu') return true;
  if (pci.vendor === undefined || !VENDORS.has(pci.vendor) || pci.class === undefined) return false;
  return GPU_CLASS.test(pci.class) || (pci.vendor === AMD && ACCELERATOR_CLASS.test(pci.class));
}

/** AMD's: by vendor, or any function bound to amdgpu. */
const isAmd = (pci: PciIdentity): boolean => pci.vendor === AMD || pci.driver === 'amdgpu';

/** One scan of the machine: every GPU candidate becomes GPUs (with health problems) or an `excluded` entry. */
export async function scanGpus(host: Host): Promise<GpuScan> {
  const ctx: ScanContext = { ...host, excluded: [], warnings: [], procfsDirs: [] };
  // Only candidates are read in full: a server's hundreds of other functions cost their vendor, class and driver.
  const pci = await enumeratePciDevices(host.sysfs, { select: isGpuCandidate });
  ctx.warnings.push(...pci.warnings);
  const candidates = pci.devices;
  const vendors = new Set(candidates.map((c) => c.vendor));
  const migMinors = vendors.has('0x10de') ? await readMigMinors(ctx) : undefined;
  const gpus: Gpu[] = [];
  for (const candidate of candidates) {
    if (isAmd(candidate)) continue;
    try {
      if (candidate.vendor === '0x10de') gpus.push(...(await scanNvidia(ctx, candidate, migMinors)));
      else gpus.push(...(await scanIntel(ctx, candidate)));
    } catch (error) {
      ctx.warnings.push(`${candidate.address}: ${String(error)}; skipped`);
    }
  }
  const amd = candidates.filter(isAmd);
  if (amd.length > 0) gpus.push(...(await scanAmdGpus(ctx, amd)));
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
