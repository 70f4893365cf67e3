import type { Logger } from '@kdp/core';
import type * as Koffi from 'koffi';
import { loadNvmlLibrary, NVML, NVML_LIBRARY, readNvmlUuid } from '../nvml/nvml-library';
import type { XidEventSource } from './xid-health';

/** NVML's critical-Xid event type (nvmlEventTypeXidCriticalError). */
const XID_CRITICAL = 0x8n;

/** Options of {@link loadNvmlXidSource}. */
export interface NvmlXidSourceOptions {
  /** The library to load (default `libnvidia-ml.so.1`, found by the dynamic loader). */
  readonly library?: string;
  /** How long one blocking wait on koffi's worker thread lasts, i.e. the longest a stop takes (default 1000). */
  readonly waitMs?: number;
}

/**
 * The NVML Xid event source, when `libnvidia-ml.so.1` loads through `koffi`; otherwise undefined, said once
 * in the log (health then comes from sysfs, procfs and /dev only). Waits run on koffi's worker thread, so the
 * event loop never blocks.
 */
export function loadNvmlXidSource(
  logger: Logger,
  options: NvmlXidSourceOptions = {},
): XidEventSource | undefined {
  const { library = NVML_LIBRARY, waitMs = 1000 } = options;
  let nvml: ReturnType<typeof bind>;
  try {
    nvml = bind(library);
  } catch (error) {
    logger.info(
      { library, err: error },
      'NVML not available; GPU health comes from sysfs, procfs and /dev only',
    );
    return undefined;
  }
  return {
    start(onEvent) {
      let stopped = false;
      let registered: ReturnType<typeof registerAll>;
      try {
        const init = nvml.init() as number;
        if (init !== NVML.SUCCESS) throw new Error(`nvmlInit_v2 returned ${init}`);
        registered = registerAll(nvml, logger);
      } catch (error) {
        logger.warn({ library, err: error }, 'NVML did not start; GPU health from sysfs only');
        return () => undefined;
      }
      const { uuids, set } = registered;
      logger.info({ library, gpus: uuids.size }, 'NVML Xid health on');
      const loop = (): void => {
        if (stopped) {
          nvml.setFree(set);
          nvml.shutdown();
          return;
        }
        const data: { device?: unknown; eventType?: number | bigint; eventData?: number | bigint } = {};
        nvml.wait.async(set, data, waitMs, (error: unknown, code: number) => {
          if (error !== null && error !== undefined) {
            logger.error({ err: error }, 'NVML event wait failed; NVML health stops');
            return;
          }
          if (code === NVML.SUCCESS && !stopped && (BigInt(data.eventType ?? 0) & XID_CRITICAL) !== 0n) {
            const uuid = data.device === null ? undefined : uuids.get(addressOf(nvml.koffi, data.device));
            onEvent({ xid: Number(data.eventData), ...(uuid !== undefined ? { uuid } : {}) });
          } else if (code !== NVML.ERROR_TIMEOUT && code !== NVML.SUCCESS) {
            logger.error({ code }, 'NVML event wait returned an error; NVML health stops');
            return;
          }
          loop();
        });
      };
      loop();
      return () => {
        stopped = true;
      };
    },
  };
}

function addressOf(koffi: typeof Koffi, pointer: unknown): bigint {
  try {
    return koffi.address(pointer);
  } catch {
    return -1n;
  }
}

function bind(library: string) {
  const { koffi, lib } = loadNvmlLibrary(library);
  return {
    koffi,
    init: lib.func('int nvmlInit_v2()'),
    shutdown: lib.func('int nvmlShutdown()'),
    count: lib.func('int nvmlDeviceGetCount_v2(_Out_ unsigned int *count)'),
    byIndex: lib.func('int nvmlDeviceGetHandleByIndex_v2(unsigned int index, _Out_ nvmlDevice_t *device)'),
    uuid: lib.func('int nvmlDeviceGetUUID(nvmlDevice_t device, _Out_ uint8_t *uuid, unsigned int length)'),
    setCreate: lib.func('int nvmlEventSetCreate(_Out_ nvmlEventSet_t *set)'),
    setFree: lib.func('int nvmlEventSetFree(nvmlEventSet_t set)'),
    register: lib.func(
      'int nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long types, nvmlEventSet_t set)',
    ),
    wait: lib.func(
      'int nvmlEventSetWait_v2(nvmlEventSet_t set, _Out_ nvmlEventData_t *data, unsigned int timeoutms)',
    ),
  };
}

/** Creates the event set and registers every GPU for critical Xid events; maps handles to UUIDs. */
function registerAll(
  nvml: ReturnType<typeof bind>,
  logger: Logger,
): { uuids: Map<bigint, string>; set: unknown } {
  const count = [0];
  if (nvml.count(count) !== NVML.SUCCESS) throw new Error('nvmlDeviceGetCount_v2 failed');
  const setOut: unknown[] = [null];
  if (nvml.setCreate(setOut) !== NVML.SUCCESS) throw new Error('nvmlEventSetCreate failed');
  const set = setOut[0];
  const uuids = new Map<bigint, string>();
  for (let index = 0; index < (count[0] ?? 0); index++) {
    const handle: unknown[] = [null];
    if (nvml.byIndex(index, handle) !== NVML.SUCCESS) continue;
    const uuid = readNvmlUuid(nvml.uuid, handle[0]);
    if (uuid === undefined) continue;
    const code = nvml.register(handle[0], XID_CRITICAL, set);
    if (code !== NVML.SUCCESS) logger.warn({ uuid, code }, 'NVML: Xid events not available for this GPU');
    uuids.set(addressOf(nvml.koffi, handle[0]), uuid);
  }
  return { uuids, set };
}
