import type { PciDevice } from '@kdp/topology';
import type { ScanContext } from './scan-context';

/** A GPU's compute and memory partition modes (SPX/DPX/TPX/QPX/CPX, NPS1/2/4/8), as amdgpu reports them. */
export interface PartitionModes {
  /** `current_compute_partition` (`SPX`, `CPX`, …); undefined when absent or unreadable. */
  readonly compute?: string;
  /** `current_memory_partition` (`NPS1`, `NPS4`, …). */
  readonly memory?: string;
  /** `available_compute_partition`, comma-separated (`SPX,DPX,QPX,CPX`). */
  readonly availableCompute?: string;
  /** `available_memory_partition`, comma-separated (`NPS1,NPS4`). */
  readonly availableMemory?: string;
}

const COMPUTE = { pattern: /^(SPX|DPX|TPX|QPX|CPX)$/, names: 'SPX, DPX, TPX, QPX or CPX' };
const MEMORY = { pattern: /^NPS(1|2|4|8)$/, names: 'NPS1, NPS2, NPS4 or NPS8' };

/** Reads one mode file: absent = undefined silently; unrecognised content = undefined with a warning. */
async function readMode(
  ctx: ScanContext,
  pci: PciDevice,
  file: string,
  modes: { readonly pattern: RegExp; readonly names: string },
  list: boolean,
): Promise<string | undefined> {
  const path = `${pci.sysfsPath}/${file}`;
  if (!(await ctx.sysfs.exists(path))) return undefined;
  const text = (await ctx.sysfs.read(path)) ?? '';
  const values = list ? text.split(',').map((mode) => mode.trim().toUpperCase()) : [text.toUpperCase()];
  if (text !== '' && values.every((mode) => modes.pattern.test(mode))) return values.join(',');
  ctx.warnings.push(
    `${pci.address}: ${file} ${JSON.stringify(text.slice(0, 40))} is not ${list ? 'a list of ' : ''}${modes.names}; left unknown`,
  );
  return undefined;
}

/**
 * The partition modes of an AMD GPU from the files amdgpu writes under its PCI function. A GPU that cannot be
 * partitioned has none of them; garbage in one is a warning and that mode stays unknown (the GPU is still advertised).
 */
export async function readPartitionModes(ctx: ScanContext, pci: PciDevice): Promise<PartitionModes> {
  const compute = await readMode(ctx, pci, 'current_compute_partition', COMPUTE, false);
  const memory = await readMode(ctx, pci, 'current_memory_partition', MEMORY, false);
  const availableCompute = await readMode(ctx, pci, 'available_compute_partition', COMPUTE, true);
  const availableMemory = await readMode(ctx, pci, 'available_memory_partition', MEMORY, true);
  return {
    ...(compute !== undefined ? { compute } : {}),
    ...(memory !== undefined ? { memory } : {}),
    ...(availableCompute !== undefined ? { availableCompute } : {}),
    ...(availableMemory !== undefined ? { availableMemory } : {}),
  };
}
