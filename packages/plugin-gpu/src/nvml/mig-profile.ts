/** What NVML says about one MIG device that decides its profile name. */
export interface MigProfileFacts {
  /** `gpuInstanceSliceCount` of nvmlDeviceGetAttributes. */
  readonly gpuInstanceSlices: number;
  /** `computeInstanceSliceCount` of nvmlDeviceGetAttributes. */
  readonly computeInstanceSlices: number;
  /** `memorySizeMB` of nvmlDeviceGetAttributes (MiB). */
  readonly memorySizeMB: number;
  /** The parent GPU's total memory in bytes (nvmlDeviceGetMemoryInfo). */
  readonly parentMemoryBytes: number;
  /** Its GPU instance's profile index (NVML_GPU_INSTANCE_PROFILE_*), which decides `+me`, `+me.all`, `+gfx`, `-me`. */
  readonly gpuInstanceProfile?: number;
}

/** Profile-name suffixes by GPU instance profile index: media extensions (REV1, ALL_ME, NO_ME) and graphics (GFX). */
const PROFILE_SUFFIX: Readonly<Record<number, string>> = {
  7: '+me',
  8: '+me',
  10: '+gfx',
  11: '+gfx',
  12: '+gfx',
  13: '-me',
  14: '-me',
  15: '+me.all',
  16: '+me.all',
};

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

/**
 * A MIG device's memory as its profile name states it, in GB: its share of the GPU's memory rounded up to eighths,
 * times the GPU's memory in whole GiB (rounded up), rounded; as NVIDIA names profiles (`1g.10gb` on an 80 GB GPU).
 */
export function migMemoryGb(memorySizeMB: number, parentMemoryBytes: number): number {
  if (!(parentMemoryBytes > 0)) return Math.round(memorySizeMB / 1024);
  const share = Math.ceil(((memorySizeMB * MIB) / parentMemoryBytes) * 8) / 8;
  return Math.round(share * Math.ceil(parentMemoryBytes / GIB));
}

/**
 * The MIG profile name NVIDIA's plugin uses for resources (`nvidia.com/mig-<profile>`): `<g>g.<gb>gb`, or
 * `<c>c.<g>g.<gb>gb` when the compute instance has fewer slices than its GPU instance, then the GPU instance
 * profile's suffix (`+me`, `+me.all`, `+gfx`, `-me`).
 */
export function migProfileName(facts: MigProfileFacts): string {
  const g = facts.gpuInstanceSlices;
  const c = facts.computeInstanceSlices;
  const gb = migMemoryGb(facts.memorySizeMB, facts.parentMemoryBytes);
  const base = c === g ? `${g}g.${gb}gb` : `${c}c.${g}g.${gb}gb`;
  return base + (PROFILE_SUFFIX[facts.gpuInstanceProfile ?? -1] ?? '');
}
