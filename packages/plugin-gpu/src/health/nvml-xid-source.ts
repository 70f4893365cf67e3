import type { Logger } from '@kdp/core';
import type { XidEventSource } from './xid-health';

/**
 * The NVML Xid event source, when `libnvidia-ml.so.1` can be loaded through `koffi`; otherwise undefined,
 * said once in the log (health then comes from sysfs, procfs and /dev only).
 */
export function loadNvmlXidSource(logger: Logger): XidEventSource | undefined {
  logger.info(
    { library: 'libnvidia-ml.so.1' },
    'NVML Xid health is not built into this version; GPU health comes from sysfs, procfs and /dev only',
  );
  return undefined;
}
