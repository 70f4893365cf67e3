import type * as Koffi from 'koffi';
import {
  bindMigQueries,
  checkNvml as check,
  initNvml,
  NVML,
  NVML_LIBRARY,
  readNvmlUuid,
} from './nvml-library';
import { migProfileName } from './mig-profile';

/** One MIG device as NVML reports it. */
export interface NvmlMigDevice {
  /** Its index under the parent GPU (nvmlDeviceGetMigDeviceHandleByIndex), NVIDIA's `<gpu>:<index>`. */
  readonly index: number;
  /** `MIG-<uuid>`. */
  readonly uuid: string;
  readonly gpuInstanceId: number;
  readonly computeInstanceId: number;
  /** NVIDIA's profile name: `1g.10gb`, `1c.3g.40gb`, `1g.10gb+me`. */
  readonly profile: string;
  readonly gpuInstanceSlices: number;
  readonly computeInstanceSlices: number;
  readonly memorySizeMB: number;
  readonly multiprocessorCount: number;
}

/** One GPU's MIG state as NVML reports it. */
export interface NvmlMigGpu {
  readonly uuid: string;
  /** The current MIG mode (nvmlDeviceGetMigMode). */
  readonly migEnabled: boolean;
  /** Its MIG devices in index order. */
  readonly devices: readonly NvmlMigDevice[];
}

/** Reads MIG devices through NVML. */
export interface NvmlMig {
  /** The MIG state of the GPU with this UUID (`GPU-…`); throws naming the NVML call that failed. */
  read(gpuUuid: string): NvmlMigGpu;
}

/** {@link loadNvmlMig}'s outcome: the reader, or why NVML is not available. */
export type NvmlMigLoad =
  { readonly ok: true; readonly mig: NvmlMig } | { readonly ok: false; readonly reason: string };

/** Options of {@link loadNvmlMig}. */
export interface NvmlMigOptions {
  /** The library (default `libnvidia-ml.so.1`, found by the dynamic loader). */
  readonly library?: string;
}

/** Profile indexes tried when mapping a GPU instance's profile ID to its index (NVML_GPU_INSTANCE_PROFILE_COUNT). */
const PROFILE_INDEXES = 18;

/**
 * Loads NVML for MIG queries (koffi, `libnvidia-ml.so.1`) and initialises it; never throws: a library that does
 * not load or initialise is `{ ok: false, reason }`. Each call is synchronous and quick; callers query only when a
 * GPU's MIG layout changed.
 */
export function loadNvmlMig(options: NvmlMigOptions = {}): NvmlMigLoad {
  const loaded = initNvml(options.library ?? NVML_LIBRARY, bind);
  if (!loaded.ok) return loaded;
  const { nvml } = loaded;
  return { ok: true, mig: { read: (uuid) => readGpu(nvml, uuid) } };
}

function bind(lib: Koffi.LibraryHandle) {
  return {
    ...bindMigQueries(lib),
    attributes: lib.func(
      'int nvmlDeviceGetAttributes_v2(nvmlDevice_t device, _Out_ nvmlDeviceAttributes_t *attributes)',
    ),
  };
}

type Bound = ReturnType<typeof bind>;

function readGpu(nvml: Bound, gpuUuid: string): NvmlMigGpu {
  const handle: unknown[] = [null];
  check('nvmlDeviceGetHandleByUUID', nvml.byUuid(gpuUuid, handle));
  const gpu = handle[0];
  const current = [0];
  check('nvmlDeviceGetMigMode', nvml.migMode(gpu, current, [0]));
  if (current[0] !== 1) return { uuid: gpuUuid, migEnabled: false, devices: [] };
  const memory: { total?: number | bigint } = {};
  check('nvmlDeviceGetMemoryInfo', nvml.memory(gpu, memory));
  const parentMemoryBytes = Number(memory.total ?? 0);
  const max = [0];
  check('nvmlDeviceGetMaxMigDeviceCount', nvml.maxMig(gpu, max));
  /** GPU instance profile ID → NVML_GPU_INSTANCE_PROFILE_* index, read once per GPU. */
  let profileIndexes: Map<number, number> | undefined;
  const profileIndexOf = (profileId: number): number | undefined => {
    if (profileIndexes === undefined) {
      profileIndexes = new Map();
      for (let index = 0; index < PROFILE_INDEXES; index++) {
        const info: { id?: number } = {};
        if (nvml.giProfile(gpu, index, info) === NVML.SUCCESS && info.id !== undefined)
          profileIndexes.set(info.id, index);
      }
    }
    return profileIndexes.get(profileId);
  };
  const devices: NvmlMigDevice[] = [];
  for (let index = 0; index < (max[0] ?? 0); index++) {
    const out: unknown[] = [null];
    const code = nvml.migByIndex(gpu, index, out) as number;
    if (code === NVML.ERROR_NOT_FOUND) continue;
    check(`nvmlDeviceGetMigDeviceHandleByIndex(${index})`, code);
    const mig = out[0];
    const uuid = readNvmlUuid(nvml.uuid, mig);
    if (uuid === undefined) throw new Error(`nvmlDeviceGetUUID failed for MIG device ${index}`);
    const gi = [0];
    const ci = [0];
    check('nvmlDeviceGetGpuInstanceId', nvml.giId(mig, gi));
    check('nvmlDeviceGetComputeInstanceId', nvml.ciId(mig, ci));
    const attributes: Record<string, number | bigint> = {};
    check('nvmlDeviceGetAttributes_v2', nvml.attributes(mig, attributes));
    const instance: unknown[] = [null];
    check('nvmlDeviceGetGpuInstanceById', nvml.giById(gpu, gi[0], instance));
    const info: { profileId?: number } = {};
    check('nvmlGpuInstanceGetInfo', nvml.giInfo(instance[0], info));
    const profileIndex = profileIndexOf(info.profileId ?? -1);
    if (profileIndex === undefined)
      throw new Error(`GPU instance ${gi[0]}: profile ID ${info.profileId} is not among the GPU's profiles`);
    const facts = {
      gpuInstanceSlices: Number(attributes.gpuInstanceSliceCount),
      computeInstanceSlices: Number(attributes.computeInstanceSliceCount),
      memorySizeMB: Number(attributes.memorySizeMB),
    };
    devices.push({
      index,
      uuid,
      gpuInstanceId: gi[0] ?? 0,
      computeInstanceId: ci[0] ?? 0,
      profile: migProfileName({
        ...facts,
        parentMemoryBytes,
        gpuInstanceProfile: profileIndex,
      }),
      ...facts,
      multiprocessorCount: Number(attributes.multiprocessorCount),
    });
  }
  return { uuid: gpuUuid, migEnabled: true, devices };
}
