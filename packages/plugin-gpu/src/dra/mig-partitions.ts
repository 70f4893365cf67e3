import type { DraCounterConsumption, DraCounterSet, DraPool, DraPoolDevice, PluginDevice } from '@kdp/core';
import type { MigGpuInstanceProfile, MigGpuProfiles } from '../nvml/nvml-partitions';
import type { GpuPayload } from '../resources/gpu-payload';
import type { MigPartition } from './mig-partition';

/** The memory slices of an A100/H100 in MIG mode, which placements are counted in. */
const MEMORY_SLICES = 8;

/** A profile name as part of a DNS label: `1g.10gb+me` → `1g10gb-me`. */
function profileSlug(name: string): string {
  return name
    .toLowerCase()
    .replace(/\.(?=\d)/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** The DRA device name of a partition of the GPU with this minor: `gpu-0-mig-1g10gb-3`. */
export function migPartitionName(minor: string, profile: string, start: number): string {
  return `gpu-${minor}-mig-${profileSlug(profile)}-${start}`;
}

/** The counters a partition (or, with every slice, the whole GPU) takes; engines it does not use are left out. */
function consumption(
  counterSet: string,
  slices: readonly number[],
  compute: number,
  engines: Pick<
    MigGpuInstanceProfile,
    'copyEngines' | 'decoders' | 'encoders' | 'jpegEngines' | 'ofaEngines'
  >,
): DraCounterConsumption {
  const counters: Record<string, number> = {};
  for (const slice of slices) counters[`memory-slice-${slice}`] = 1;
  counters['compute-slices'] = compute;
  const named: Record<string, number> = {
    'copy-engines': engines.copyEngines,
    decoders: engines.decoders,
    encoders: engines.encoders,
    'jpeg-engines': engines.jpegEngines,
    'ofa-engines': engines.ofaEngines,
  };
  for (const [name, value] of Object.entries(named)) if (value > 0) counters[name] = value;
  return { counterSet, counters };
}

/** What the GPU holds of each engine: the most any one profile takes (the full-GPU profile takes all). */
function gpuEngines(profiles: readonly MigGpuInstanceProfile[]) {
  const most = (pick: (p: MigGpuInstanceProfile) => number): number => Math.max(0, ...profiles.map(pick));
  return {
    copyEngines: most((p) => p.copyEngines),
    decoders: most((p) => p.decoders),
    encoders: most((p) => p.encoders),
    jpegEngines: most((p) => p.jpegEngines),
    ofaEngines: most((p) => p.ofaEngines),
  };
}

/**
 * The DRA pool of a GPU resource with dynamic MIG partitioning (KEP 4815): each whole NVIDIA GPU in MIG mode gets a
 * counter set `gpu-<minor>-mig` (one counter per memory slice, the compute slices, and the copy engines, decoders,
 * encoders, JPEG and OFA engines its profiles use, as NVML reports them), one device per placeable profile placement
 * (`gpu-0-mig-1g10gb-3`) taking its slices and engines, and the GPU itself taking everything: the scheduler never
 * gives out two partitions that overlap, nor a partition and its whole GPU. Other devices (MIG mode off, time-slicing
 * replicas, MIG devices of a static layout, other vendors) are published as they are. The memory slices of GPU
 * instances that exist are published used up (0), so that no claim overlaps an instance made outside the driver.
 * `profilesOf` answers NVML's profiles and instances for a GPU UUID (undefined: unknown, published as it is).
 */
export function migPartitionPool(
  devices: readonly PluginDevice<GpuPayload>[],
  profilesOf: (uuid: string) => MigGpuProfiles | undefined,
): DraPool<GpuPayload> {
  const out: DraPoolDevice<GpuPayload>[] = [];
  const sharedCounters: DraCounterSet[] = [];
  for (const device of devices) {
    const gpu = device.payload?.gpu;
    const minor = gpu?.attributes['minor'];
    const profiles =
      gpu?.kind === 'nvidia' && device.payload?.replica === undefined && minor !== undefined
        ? profilesOf(gpu.id)
        : undefined;
    if (gpu === undefined || minor === undefined || profiles === undefined || !profiles.migEnabled) {
      out.push(device);
      continue;
    }
    const placeable = profiles.profiles.filter((p) => p.placements.length > 0);
    if (placeable.length === 0) {
      out.push(device);
      continue;
    }
    const counterSet = `gpu-${minor}-mig`;
    const engines = gpuEngines(placeable);
    const allSlices = Array.from({ length: MEMORY_SLICES }, (_, i) => i);
    const compute = Math.max(...placeable.map((p) => p.slices));
    const whole = consumption(counterSet, allSlices, compute, engines);
    // The memory slices of instances already there are used up: no claim may overlap one made outside the driver
    // (one made for a claim is counted by the scheduler as well, which changes nothing: its slices are its own).
    const taken = new Set(
      profiles.instances.flatMap((gi) => Array.from({ length: gi.size }, (_, i) => gi.start + i)),
    );
    const available = Object.fromEntries(
      Object.entries(whole.counters).map(([name, value]) => [
        name,
        taken.has(Number(/^memory-slice-(\d+)$/.exec(name)?.[1] ?? -1)) ? 0 : value,
      ]),
    );
    sharedCounters.push({ name: counterSet, counters: available });
    out.push({ ...device, consumesCounters: [whole] });
    const { uuid: _uuid, ...parentAttributes } = gpu.attributes;
    for (const profile of placeable) {
      for (const { start, size } of profile.placements) {
        const slices = Array.from({ length: size }, (_, i) => start + i);
        const partition: MigPartition = { profile, start, size };
        out.push({
          id: migPartitionName(minor, profile.name, start),
          health: device.health,
          ...(device.problem !== undefined ? { problem: device.problem } : {}),
          ...(device.numaNodes !== undefined ? { numaNodes: device.numaNodes } : {}),
          ...(device.pciePath !== undefined ? { pciePath: device.pciePath } : {}),
          ...(device.pciAddress !== undefined ? { pciAddress: device.pciAddress } : {}),
          attributes: {
            ...parentAttributes,
            parentUUID: gpu.id,
            profile: profile.name,
            placementStart: String(start),
            placementSize: String(size),
            memoryMiB: String(profile.memorySizeMB),
            multiprocessors: String(profile.multiprocessors),
          },
          payload: { gpu, partition },
          consumesCounters: [consumption(counterSet, slices, profile.slices, profile)],
        });
      }
    }
  }
  return { devices: out, ...(sharedCounters.length > 0 ? { sharedCounters } : {}) };
}
