import type { Gpu } from '../scan/gpu';

/** The vendor family whose GPUs are numbered together. */
const familyOf = (gpu: Gpu): string =>
  gpu.kind.startsWith('nvidia') ? 'nvidia' : gpu.kind === 'amd' ? 'amd' : 'intel';

/**
 * Each GPU's index by ID, as nvidia-smi and NVIDIA's `deviceIDStrategy: index` number them: NVIDIA GPUs in PCI
 * address order (`0`, `1`, …), a MIG device as `<gpu>:<n>` (its GPU's index, then its place among that GPU's
 * MIG devices in scan order); AMD and Intel devices numbered per vendor in PCI address order (then ID).
 */
export function gpuIndexes(gpus: readonly Gpu[]): ReadonlyMap<string, string> {
  const byAddress = (a: Gpu, b: Gpu): number =>
    a.pciAddress < b.pciAddress
      ? -1
      : a.pciAddress > b.pciAddress
        ? 1
        : a.id < b.id
          ? -1
          : a.id > b.id
            ? 1
            : 0;
  const indexes = new Map<string, string>();
  const nvidiaAddresses = [
    ...new Set(gpus.filter((gpu) => familyOf(gpu) === 'nvidia').map((gpu) => gpu.pciAddress)),
  ].sort();
  const migCount = new Map<string, number>();
  for (const gpu of gpus) {
    if (familyOf(gpu) !== 'nvidia') continue;
    const index = nvidiaAddresses.indexOf(gpu.pciAddress);
    if (gpu.kind !== 'nvidia-mig') {
      indexes.set(gpu.id, String(index));
      continue;
    }
    const n = migCount.get(gpu.pciAddress) ?? 0;
    migCount.set(gpu.pciAddress, n + 1);
    // NVML's MIG index where known (it may have gaps), else the place among the GPU's MIG devices.
    indexes.set(gpu.id, `${index}:${gpu.mig?.index ?? n}`);
  }
  for (const family of ['amd', 'intel']) {
    gpus
      .filter((gpu) => familyOf(gpu) === family)
      .sort(byAddress)
      .forEach((gpu, index) => indexes.set(gpu.id, String(index)));
  }
  return indexes;
}
