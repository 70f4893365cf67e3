import { migProfileName } from './mig-profile';
import type * as Koffi from 'koffi';
import {
  bindMigQueries,
  checkNvml as check,
  initNvml,
  NVML,
  NVML_LIBRARY,
  readNvmlUuid,
} from './nvml-library';

/** Where a GPU instance may sit: its first memory slice and how many it covers (of 8 on A100/H100). */
export interface MigPlacementSlot {
  readonly start: number;
  readonly size: number;
}

/** One GPU instance profile of a GPU, as nvmlDeviceGetGpuInstanceProfileInfo reports it. */
export interface MigGpuInstanceProfile {
  /** Its NVML_GPU_INSTANCE_PROFILE_* index (7: `+me`). */
  readonly index: number;
  /** Its profile ID, what creation takes. */
  readonly id: number;
  /** NVIDIA's name: `1g.10gb`, `1g.10gb+me`, `7g.80gb`. */
  readonly name: string;
  readonly slices: number;
  /** How many instances of it the GPU can hold at most. */
  readonly instances: number;
  readonly multiprocessors: number;
  readonly copyEngines: number;
  readonly decoders: number;
  readonly encoders: number;
  readonly jpegEngines: number;
  readonly ofaEngines: number;
  readonly memorySizeMB: number;
  /** nvmlDeviceGetGpuInstancePossiblePlacements_v2. */
  readonly placements: readonly MigPlacementSlot[];
}

/** A GPU instance that exists: its profile ID and placement. */
export interface MigGpuInstanceAt extends MigPlacementSlot {
  readonly profileId: number;
}

/** What one GPU offers for MIG partitions. */
export interface MigGpuProfiles {
  readonly uuid: string;
  readonly migEnabled: boolean;
  /** The profiles NVML reports with placements; empty when MIG is off. */
  readonly profiles: readonly MigGpuInstanceProfile[];
  /** The GPU instances there now, whoever made them. */
  readonly instances: readonly MigGpuInstanceAt[];
}

/** A MIG device made (or found) at a placement: its GPU and compute instance and its UUID. */
export interface MigCreated {
  readonly gpuInstanceId: number;
  readonly computeInstanceId: number;
  /** `MIG-…`. */
  readonly uuid: string;
  /** False when the GPU instance was already at that placement (a prepare repeated after a restart). */
  readonly created: boolean;
}

/** MIG partitions through NVML: what a GPU offers, and GPU + compute instances made and destroyed at a placement. */
export interface NvmlPartitions {
  /** The GPU's instance profiles and their placements; throws naming the NVML call that failed. */
  profiles(gpuUuid: string): MigGpuProfiles;
  /**
   * A GPU instance of the profile at `start` and one compute instance over all of it, reused when one of that
   * profile is there already; throws `… returned 23` (NVML_ERROR_INSUFFICIENT_RESOURCES) where it would overlap.
   */
  create(gpuUuid: string, profileId: number, start: number): MigCreated;
  /** Destroys the compute instances and the GPU instance of that profile at `start`; false when none is there. */
  destroy(gpuUuid: string, profileId: number, start: number): boolean;
}

/** {@link loadNvmlPartitions}'s outcome. */
export type NvmlPartitionsLoad =
  | { readonly ok: true; readonly partitions: NvmlPartitions }
  | { readonly ok: false; readonly reason: string };

/** NVML_GPU_INSTANCE_PROFILE_COUNT, and the GPU / compute instance IDs tried (A100/H100: GI 1–14, CI 0–7). */
const PROFILE_INDEXES = 18;
const MAX_GPU_INSTANCE_ID = 15;
const MAX_COMPUTE_INSTANCE_ID = 8;
/** NVML_COMPUTE_INSTANCE_PROFILE_COUNT, and NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED. */
const CI_PROFILE_INDEXES = 7;
const ENGINE_PROFILE_SHARED = 0;

/** Loads NVML (koffi) for MIG partitions and initialises it; never throws. */
export function loadNvmlPartitions(library: string = NVML_LIBRARY): NvmlPartitionsLoad {
  const loaded = initNvml(library, bind);
  if (!loaded.ok) return loaded;
  const { nvml } = loaded;
  return {
    ok: true,
    partitions: {
      profiles: (uuid) => readProfiles(nvml, uuid),
      create: (uuid, profileId, start) => create(nvml, uuid, profileId, start),
      destroy: (uuid, profileId, start) => destroy(nvml, uuid, profileId, start),
    },
  };
}

function bind(lib: Koffi.LibraryHandle) {
  return {
    ...bindMigQueries(lib),
    placements: lib.func(
      'int nvmlDeviceGetGpuInstancePossiblePlacements_v2(nvmlDevice_t device, unsigned int profileId, _Out_ uint8_t *placements, _Inout_ unsigned int *count)',
    ),
    giCreate: lib.func(
      'int nvmlDeviceCreateGpuInstanceWithPlacement(nvmlDevice_t device, unsigned int profileId, const nvmlGpuInstancePlacement_t *placement, _Out_ nvmlGpuInstance_t *instance)',
    ),
    giDestroy: lib.func('int nvmlGpuInstanceDestroy(nvmlGpuInstance_t instance)'),
    ciProfile: lib.func(
      'int nvmlGpuInstanceGetComputeInstanceProfileInfo(nvmlGpuInstance_t instance, unsigned int profile, unsigned int engProfile, _Out_ nvmlComputeInstanceProfileInfo_t *info)',
    ),
    ciCreate: lib.func(
      'int nvmlGpuInstanceCreateComputeInstance(nvmlGpuInstance_t instance, unsigned int profileId, _Out_ nvmlComputeInstance_t *compute)',
    ),
    ciById: lib.func(
      'int nvmlGpuInstanceGetComputeInstanceById(nvmlGpuInstance_t instance, unsigned int id, _Out_ nvmlComputeInstance_t *compute)',
    ),
    ciDestroy: lib.func('int nvmlComputeInstanceDestroy(nvmlComputeInstance_t compute)'),
  };
}

type Bound = ReturnType<typeof bind>;

function gpuHandle(nvml: Bound, gpuUuid: string): unknown {
  const handle: unknown[] = [null];
  check('nvmlDeviceGetHandleByUUID', nvml.byUuid(gpuUuid, handle));
  return handle[0];
}

/** The placements of one profile (each `nvmlGpuInstancePlacement_t` is two unsigned ints). */
function placementsOf(nvml: Bound, gpu: unknown, profileId: number): MigPlacementSlot[] {
  const count = [8];
  const buffer = Buffer.alloc(8 * 8);
  check('nvmlDeviceGetGpuInstancePossiblePlacements_v2', nvml.placements(gpu, profileId, buffer, count));
  return Array.from({ length: count[0] ?? 0 }, (_, i) => ({
    start: buffer.readUInt32LE(i * 8),
    size: buffer.readUInt32LE(i * 8 + 4),
  }));
}

function readProfiles(nvml: Bound, gpuUuid: string): MigGpuProfiles {
  const gpu = gpuHandle(nvml, gpuUuid);
  const current = [0];
  check('nvmlDeviceGetMigMode', nvml.migMode(gpu, current, [0]));
  if (current[0] !== 1) return { uuid: gpuUuid, migEnabled: false, profiles: [], instances: [] };
  const memory: { total?: number | bigint } = {};
  check('nvmlDeviceGetMemoryInfo', nvml.memory(gpu, memory));
  const parentMemoryBytes = Number(memory.total ?? 0);
  const profiles: MigGpuInstanceProfile[] = [];
  for (let index = 0; index < PROFILE_INDEXES; index++) {
    const info: Record<string, number | bigint> = {};
    if (nvml.giProfile(gpu, index, info) !== NVML.SUCCESS) continue;
    const slices = Number(info['sliceCount']);
    if (!(slices > 0)) continue;
    const id = Number(info['id']);
    const memorySizeMB = Number(info['memorySizeMB']);
    profiles.push({
      index,
      id,
      name: migProfileName({
        gpuInstanceSlices: slices,
        computeInstanceSlices: slices,
        memorySizeMB,
        parentMemoryBytes,
        gpuInstanceProfile: index,
      }),
      slices,
      instances: Number(info['instanceCount']),
      multiprocessors: Number(info['multiprocessorCount']),
      copyEngines: Number(info['copyEngineCount']),
      decoders: Number(info['decoderCount']),
      encoders: Number(info['encoderCount']),
      jpegEngines: Number(info['jpegCount']),
      ofaEngines: Number(info['ofaCount']),
      memorySizeMB,
      placements: placementsOf(nvml, gpu, id),
    });
  }
  return { uuid: gpuUuid, migEnabled: true, profiles, instances: gpuInstances(nvml, gpu) };
}

/** The GPU instances of a GPU (IDs 1–14), with their profile IDs and placements. */
function gpuInstances(nvml: Bound, gpu: unknown): MigGpuInstanceAt[] {
  const found: MigGpuInstanceAt[] = [];
  for (let id = 1; id < MAX_GPU_INSTANCE_ID; id++) {
    const out: unknown[] = [null];
    if (nvml.giById(gpu, id, out) !== NVML.SUCCESS) continue;
    const info: { profileId?: number; placementStart?: number; placementSize?: number } = {};
    check('nvmlGpuInstanceGetInfo', nvml.giInfo(out[0], info));
    found.push({
      profileId: info.profileId ?? 0,
      start: info.placementStart ?? 0,
      size: info.placementSize ?? 0,
    });
  }
  return found;
}

/** The GPU instance of `profileId` whose placement starts at `start`, with its ID and slices; undefined if none. */
function findGpuInstance(
  nvml: Bound,
  gpu: unknown,
  profileId: number,
  start: number,
): { handle: unknown; id: number } | undefined {
  for (let id = 1; id < MAX_GPU_INSTANCE_ID; id++) {
    const out: unknown[] = [null];
    if (nvml.giById(gpu, id, out) !== NVML.SUCCESS) continue;
    const info: { profileId?: number; placementStart?: number } = {};
    check('nvmlGpuInstanceGetInfo', nvml.giInfo(out[0], info));
    if (info.profileId === profileId && info.placementStart === start) return { handle: out[0], id };
  }
  return undefined;
}

/** The compute instances of a GPU instance, by ID. */
function computeInstances(nvml: Bound, instance: unknown): { handle: unknown; id: number }[] {
  const found: { handle: unknown; id: number }[] = [];
  for (let id = 0; id < MAX_COMPUTE_INSTANCE_ID; id++) {
    const out: unknown[] = [null];
    if (nvml.ciById(instance, id, out) === NVML.SUCCESS) found.push({ handle: out[0], id });
  }
  return found;
}

/** The compute instance profile (NVML_COMPUTE_INSTANCE_PROFILE_*) covering all `slices` of a GPU instance. */
function wholeComputeProfile(nvml: Bound, instance: unknown, slices: number): number {
  for (let profile = 0; profile < CI_PROFILE_INDEXES; profile++) {
    const info: { id?: number; sliceCount?: number } = {};
    if (nvml.ciProfile(instance, profile, ENGINE_PROFILE_SHARED, info) !== NVML.SUCCESS) continue;
    if (info.sliceCount === slices) return info.id ?? profile;
  }
  throw new Error(`no compute instance profile covers the GPU instance's ${slices} slices`);
}

/** The UUID of the MIG device of GPU instance `gi` / compute instance `ci`. */
function migUuid(nvml: Bound, gpu: unknown, gi: number, ci: number): string {
  const max = [0];
  check('nvmlDeviceGetMaxMigDeviceCount', nvml.maxMig(gpu, max));
  for (let index = 0; index < (max[0] ?? 0); index++) {
    const out: unknown[] = [null];
    if (nvml.migByIndex(gpu, index, out) !== NVML.SUCCESS) continue;
    const giId = [0];
    const ciId = [0];
    check('nvmlDeviceGetGpuInstanceId', nvml.giId(out[0], giId));
    check('nvmlDeviceGetComputeInstanceId', nvml.ciId(out[0], ciId));
    if (giId[0] !== gi || ciId[0] !== ci) continue;
    const uuid = readNvmlUuid(nvml.uuid, out[0]);
    if (uuid !== undefined) return uuid;
  }
  throw new Error(`no MIG device for GPU instance ${gi}, compute instance ${ci}`);
}

function create(nvml: Bound, gpuUuid: string, profileId: number, start: number): MigCreated {
  const gpu = gpuHandle(nvml, gpuUuid);
  const profile = readProfiles(nvml, gpuUuid).profiles.find((p) => p.id === profileId);
  if (profile === undefined) throw new Error(`GPU ${gpuUuid} has no MIG profile ${profileId}`);
  const placement = profile.placements.find((p) => p.start === start);
  if (placement === undefined)
    throw new Error(`MIG profile ${profile.name} cannot be placed at memory slice ${start}`);
  let instance = findGpuInstance(nvml, gpu, profileId, start);
  const created = instance === undefined;
  if (instance === undefined) {
    const out: unknown[] = [null];
    check('nvmlDeviceCreateGpuInstanceWithPlacement', nvml.giCreate(gpu, profileId, placement, out));
    const info: { id?: number } = {};
    check('nvmlGpuInstanceGetInfo', nvml.giInfo(out[0], info));
    instance = { handle: out[0], id: info.id ?? 0 };
  }
  let compute = computeInstances(nvml, instance.handle)[0];
  if (compute === undefined) {
    const out: unknown[] = [null];
    const ciProfile = wholeComputeProfile(nvml, instance.handle, profile.slices);
    check('nvmlGpuInstanceCreateComputeInstance', nvml.ciCreate(instance.handle, ciProfile, out));
    compute = computeInstances(nvml, instance.handle)[0];
    if (compute === undefined)
      throw new Error(`GPU instance ${instance.id}: the compute instance is not there`);
  }
  return {
    gpuInstanceId: instance.id,
    computeInstanceId: compute.id,
    uuid: migUuid(nvml, gpu, instance.id, compute.id),
    created,
  };
}

function destroy(nvml: Bound, gpuUuid: string, profileId: number, start: number): boolean {
  const gpu = gpuHandle(nvml, gpuUuid);
  const instance = findGpuInstance(nvml, gpu, profileId, start);
  if (instance === undefined) return false;
  for (const compute of computeInstances(nvml, instance.handle))
    check('nvmlComputeInstanceDestroy', nvml.ciDestroy(compute.handle));
  check('nvmlGpuInstanceDestroy', nvml.giDestroy(instance.handle));
  return true;
}
