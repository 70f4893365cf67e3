import type * as Koffi from 'koffi';

/** NVML's return codes used here. */
export const NVML = {
  SUCCESS: 0,
  ERROR_INVALID_ARGUMENT: 2,
  ERROR_NOT_SUPPORTED: 3,
  ERROR_NOT_FOUND: 6,
  ERROR_TIMEOUT: 10,
  ERROR_IN_USE: 19,
  ERROR_INSUFFICIENT_RESOURCES: 23,
} as const;

/** The default library, found by the dynamic loader. */
export const NVML_LIBRARY = 'libnvidia-ml.so.1';

/** libnvidia-ml loaded through koffi, with NVML's types declared; bind functions with `lib.func('int nvml…(…)')`. */
export interface NvmlLibrary {
  readonly koffi: typeof Koffi;
  readonly lib: Koffi.LibraryHandle;
}

/**
 * Loads `library` through koffi (throws when koffi or the library does not load). NVML's handle and struct types
 * (`nvmlDevice_t`, `nvmlEventData_t`, `nvmlDeviceAttributes_t`, …) are declared once per process, so the Xid source
 * and the MIG reader can both bind functions that use them.
 */
export function loadNvmlLibrary(library: string = NVML_LIBRARY): NvmlLibrary {
  // Loaded only here, so that a machine without NVIDIA never touches the native module.
  const koffi = require('koffi') as typeof Koffi;
  declareTypes(koffi);
  return { koffi, lib: koffi.load(library) };
}

/** Declares a named type unless koffi knows it already (koffi's type names are process-wide). */
function declare(koffi: typeof Koffi, name: string, make: () => unknown): void {
  try {
    koffi.type(name);
  } catch {
    make();
  }
}

function declareTypes(koffi: typeof Koffi): void {
  declare(koffi, 'nvmlDevice_t', () => koffi.pointer('nvmlDevice_t', koffi.opaque()));
  declare(koffi, 'nvmlEventSet_t', () => koffi.pointer('nvmlEventSet_t', koffi.opaque()));
  declare(koffi, 'nvmlGpuInstance_t', () => koffi.pointer('nvmlGpuInstance_t', koffi.opaque()));
  declare(koffi, 'nvmlComputeInstance_t', () => koffi.pointer('nvmlComputeInstance_t', koffi.opaque()));
  declare(koffi, 'nvmlGpuInstancePlacement_t', () =>
    koffi.struct('nvmlGpuInstancePlacement_t', { start: 'unsigned int', size: 'unsigned int' }),
  );
  declare(koffi, 'nvmlComputeInstanceProfileInfo_t', () =>
    koffi.struct('nvmlComputeInstanceProfileInfo_t', {
      id: 'unsigned int',
      sliceCount: 'unsigned int',
      instanceCount: 'unsigned int',
      multiprocessorCount: 'unsigned int',
      sharedCopyEngineCount: 'unsigned int',
      sharedDecoderCount: 'unsigned int',
      sharedEncoderCount: 'unsigned int',
      sharedJpegCount: 'unsigned int',
      sharedOfaCount: 'unsigned int',
    }),
  );
  declare(koffi, 'nvmlComputeInstanceInfo_t', () =>
    koffi.struct('nvmlComputeInstanceInfo_t', {
      device: 'nvmlDevice_t',
      gpuInstance: 'nvmlGpuInstance_t',
      id: 'unsigned int',
      profileId: 'unsigned int',
      placement: 'nvmlGpuInstancePlacement_t',
    }),
  );
  declare(koffi, 'nvmlEventData_t', () =>
    koffi.struct('nvmlEventData_t', {
      device: 'nvmlDevice_t',
      eventType: 'unsigned long long',
      eventData: 'unsigned long long',
      gpuInstanceId: 'unsigned int',
      computeInstanceId: 'unsigned int',
    }),
  );
  declare(koffi, 'nvmlMemory_t', () =>
    koffi.struct('nvmlMemory_t', {
      total: 'unsigned long long',
      free: 'unsigned long long',
      used: 'unsigned long long',
    }),
  );
  declare(koffi, 'nvmlDeviceAttributes_t', () =>
    koffi.struct('nvmlDeviceAttributes_t', {
      multiprocessorCount: 'unsigned int',
      sharedCopyEngineCount: 'unsigned int',
      sharedDecoderCount: 'unsigned int',
      sharedEncoderCount: 'unsigned int',
      sharedJpegCount: 'unsigned int',
      sharedOfaCount: 'unsigned int',
      gpuInstanceSliceCount: 'unsigned int',
      computeInstanceSliceCount: 'unsigned int',
      memorySizeMB: 'unsigned long long',
    }),
  );
  declare(koffi, 'nvmlGpuInstanceInfo_t', () =>
    koffi.struct('nvmlGpuInstanceInfo_t', {
      device: 'nvmlDevice_t',
      id: 'unsigned int',
      profileId: 'unsigned int',
      placementStart: 'unsigned int',
      placementSize: 'unsigned int',
    }),
  );
  declare(koffi, 'nvmlGpuInstanceProfileInfo_t', () =>
    koffi.struct('nvmlGpuInstanceProfileInfo_t', {
      id: 'unsigned int',
      isP2pSupported: 'unsigned int',
      sliceCount: 'unsigned int',
      instanceCount: 'unsigned int',
      multiprocessorCount: 'unsigned int',
      copyEngineCount: 'unsigned int',
      decoderCount: 'unsigned int',
      encoderCount: 'unsigned int',
      jpegCount: 'unsigned int',
      ofaCount: 'unsigned int',
      memorySizeMB: 'unsigned long long',
    }),
  );
}

/** A device's UUID through `nvmlDeviceGetUUID` (GPU-… or MIG-…); undefined when NVML fails. */
export function readNvmlUuid(
  getUuid: (handle: unknown, buffer: Buffer, length: number) => number,
  handle: unknown,
): string | undefined {
  const buffer = Buffer.alloc(96);
  if (getUuid(handle, buffer, buffer.length) !== NVML.SUCCESS) return undefined;
  const end = buffer.indexOf(0);
  return buffer.subarray(0, end < 0 ? buffer.length : end).toString('latin1');
}

/** An error's message (koffi's errors may come from another realm), without koffi's generic prefix. */
function messageOf(error: unknown): string {
  const message = (error as { message?: unknown } | undefined)?.message;
  return (typeof message === 'string' ? message : String(error)).replace(
    /^Failed to load shared library: /,
    '',
  );
}

/** Throws `<name> returned <code>` unless an NVML call's code is NVML_SUCCESS. */
export function checkNvml(name: string, code: unknown): void {
  if (code !== NVML.SUCCESS) throw new Error(`${name} returned ${String(code)}`);
}

/** The MIG queries both the MIG reader and the partition calls bind: handles, UUIDs, MIG mode, instances. */
export function bindMigQueries(lib: Koffi.LibraryHandle) {
  return {
    init: lib.func('int nvmlInit_v2()'),
    byUuid: lib.func('int nvmlDeviceGetHandleByUUID(const char *uuid, _Out_ nvmlDevice_t *device)'),
    uuid: lib.func('int nvmlDeviceGetUUID(nvmlDevice_t device, _Out_ uint8_t *uuid, unsigned int length)'),
    memory: lib.func('int nvmlDeviceGetMemoryInfo(nvmlDevice_t device, _Out_ nvmlMemory_t *memory)'),
    migMode: lib.func(
      'int nvmlDeviceGetMigMode(nvmlDevice_t device, _Out_ unsigned int *current, _Out_ unsigned int *pending)',
    ),
    maxMig: lib.func('int nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, _Out_ unsigned int *count)'),
    migByIndex: lib.func(
      'int nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index, _Out_ nvmlDevice_t *mig)',
    ),
    giId: lib.func('int nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, _Out_ unsigned int *id)'),
    ciId: lib.func('int nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, _Out_ unsigned int *id)'),
    giById: lib.func(
      'int nvmlDeviceGetGpuInstanceById(nvmlDevice_t device, unsigned int id, _Out_ nvmlGpuInstance_t *instance)',
    ),
    giInfo: lib.func(
      'int nvmlGpuInstanceGetInfo(nvmlGpuInstance_t instance, _Out_ nvmlGpuInstanceInfo_t *info)',
    ),
    giProfile: lib.func(
      'int nvmlDeviceGetGpuInstanceProfileInfo(nvmlDevice_t device, unsigned int profile, _Out_ nvmlGpuInstanceProfileInfo_t *info)',
    ),
  };
}

/**
 * Binds `library`'s functions with `bind` and initialises NVML; never throws: a library that does not load or
 * initialise is `{ ok: false, reason }`.
 */
export function initNvml<B extends { readonly init: () => unknown }>(
  library: string,
  bind: (lib: Koffi.LibraryHandle) => B,
): { readonly ok: true; readonly nvml: B } | { readonly ok: false; readonly reason: string } {
  let nvml: B;
  try {
    nvml = bind(loadNvmlLibrary(library).lib);
  } catch (error) {
    return { ok: false, reason: `${library} did not load: ${messageOf(error)}` };
  }
  const init = nvml.init() as number;
  if (init !== NVML.SUCCESS) return { ok: false, reason: `nvmlInit_v2 returned ${init}` };
  return { ok: true, nvml };
}
