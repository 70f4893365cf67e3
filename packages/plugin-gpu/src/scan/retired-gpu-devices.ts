import type { PluginDevice } from '@kdp/core';
import type { Gpu, GpuScan } from './gpu';
import { retiredMigDevices } from './mig-strategy';

const modesOf = (gpu: Gpu): string =>
  `${gpu.partitionModes?.compute ?? ''}/${gpu.partitionModes?.memory ?? ''}`;

/**
 * Which remembered devices are gone for good rather than vanished: a MIG device whose GPU reports a new MIG layout,
 * and an AMD compute partition whose GPU (same PCI address) is present in other compute or memory partition modes.
 */
export function retiredGpuDevices(scan: GpuScan): (device: PluginDevice<unknown>) => boolean {
  const mig = retiredMigDevices(scan);
  const amdModes = new Map(
    scan.gpus.filter((gpu) => gpu.kind === 'amd').map((gpu) => [gpu.pciAddress, modesOf(gpu)] as const),
  );
  return (device) => {
    if (mig(device)) return true;
    const gpu = (device.payload as { readonly gpu?: Gpu } | undefined)?.gpu;
    if (gpu?.kind !== 'amd') return false;
    const now = amdModes.get(gpu.pciAddress);
    return now !== undefined && now !== modesOf(gpu);
  };
}
