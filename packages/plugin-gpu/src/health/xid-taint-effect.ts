import type { DeviceTaintEffect, PluginDevice } from '@kdp/core';
import type { GpuPayload } from '../resources/gpu-payload';

/**
 * The critical Xids after which the GPU is lost to the pods using it, so they are evicted (`NoExecute`), after
 * NVIDIA's Xid catalogue: 79, the GPU has fallen off the bus (nothing reaches it until a reset or reboot); 48, a
 * double-bit ECC error (uncorrectable: the memory's contents are wrong and, before Ampere, the GPU must be reset);
 * 95, an uncontained ECC error (every context on the GPU is affected, a reset is required). Not 94, a contained
 * ECC error: only the process that met it is stopped and the others keep running, so the GPU only takes no new
 * work (`NoSchedule`), like any other problem.
 */
export const GPU_LOST_XIDS: ReadonlySet<number> = new Set([48, 79, 95]);

/** The effect of an Unhealthy GPU's taint under DRA: `NoExecute` while one of {@link GPU_LOST_XIDS} is held against it. */
export function xidTaintEffect(device: PluginDevice<GpuPayload>): DeviceTaintEffect {
  return (device.payload?.gpu.xids ?? []).some((xid) => GPU_LOST_XIDS.has(xid)) ? 'NoExecute' : 'NoSchedule';
}
