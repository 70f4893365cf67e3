import { validateResourceName } from '@kdp/api';
import type { GpuConfig } from '../config';
import type { Gpu } from '../scan/gpu';

/** NVIDIA's suffix of a shared resource's default name (`renameByDefault`). */
export const SHARED_SUFFIX = '.shared';

/** A GPU before time-slicing: its default resource name and its index ({@link gpuIndexes}). */
export interface UnsharedGpu {
  readonly gpu: Gpu;
  readonly name: string;
  readonly index: string | undefined;
}

/** How a GPU is advertised: under which resource, as how many replicas (1 = whole). */
export interface GpuShare {
  readonly name: string;
  readonly replicas: number;
}

/** One entry of a `devices` list: a GPU index (`0`, `"0"`), a MIG index (`"0:1"`), an ID (UUID) or a PCI address. */
export type DeviceRef = number | string;

/** Whether a `devices` entry names a GPU: an index matches the GPU's index exactly, any other text its ID or PCI address. */
export function deviceRefSelects(
  ref: DeviceRef,
  { gpu, index }: Pick<UnsharedGpu, 'gpu' | 'index'>,
): boolean {
  const text = String(ref);
  if (/^\d+(:\d+)?$/.test(text)) return index === text;
  return gpu.id === text || gpu.pciAddress === text;
}

/**
 * Time-slicing of a scan, as NVIDIA's `sharing.timeSlicing`: a GPU whose resource a `sharing.resources` entry names
 * is advertised as that entry's replicas when the entry's `devices` select it (all by default), under `rename`, else
 * `<name>.shared` with `renameByDefault`, else its own name; the GPUs it does not select stay whole under their own
 * name. Resources no entry names take `sharing.replicas` (renamed the same way). Entries of `devices` that match no
 * GPU of the resource are reported in `warnings`.
 */
export function planTimeSlicing(
  gpus: readonly UnsharedGpu[],
  sharing: GpuConfig['sharing'],
): { readonly shares: GpuShare[]; readonly warnings: string[] } {
  const warnings = new Set<string>();
  const sharedName = (name: string, rename: string | undefined): string => {
    if (rename !== undefined) return rename;
    if (!sharing.renameByDefault) return name;
    const renamed = `${name}${SHARED_SUFFIX}`;
    if (validateResourceName(renamed).valid) return renamed;
    warnings.add(`sharing.renameByDefault: ${renamed} is not a valid resource name; ${name} is kept`);
    return name;
  };
  const shares = gpus.map((item): GpuShare => {
    const entry = sharing.resources.find((candidate) => candidate.name === item.name);
    if (entry === undefined) {
      return sharing.replicas > 1
        ? { name: sharedName(item.name, undefined), replicas: sharing.replicas }
        : { name: item.name, replicas: 1 };
    }
    const selected = entry.devices === 'all' || entry.devices.some((ref) => deviceRefSelects(ref, item));
    return selected && entry.replicas > 1
      ? { name: sharedName(item.name, entry.rename), replicas: entry.replicas }
      : { name: item.name, replicas: 1 };
  });
  sharing.resources.forEach((entry, entryIndex) => {
    if (entry.devices === 'all') return;
    entry.devices.forEach((ref, refIndex) => {
      if (!gpus.some((item) => item.name === entry.name && deviceRefSelects(ref, item))) {
        warnings.add(
          `sharing.resources[${entryIndex}].devices[${refIndex}]: ${JSON.stringify(ref)} matches no device of ${entry.name}`,
        );
      }
    });
  });
  return { shares, warnings: [...warnings] };
}
