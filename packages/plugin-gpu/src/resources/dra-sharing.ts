import type { DraSharing, PluginDevice } from '@kdp/core';
import type { GpuPayload } from './gpu-payload';

/** The capacity a time-sliced GPU publishes under DRA: its replicas, of which each claim takes `timeSlices`. */
export const TIME_SLICES_CAPACITY = 'timeSlices';

/** The variable telling a container how many of its GPU's time slices its share holds, `<held>/<of>` (`1/4`). */
export const KDP_GPU_TIME_SLICES = 'KDP_GPU_TIME_SLICES';

/** CUDA MPS: the share of the GPU's SMs a client may use, in percent (applied only when an MPS server runs). */
export const CUDA_MPS_ACTIVE_THREAD_PERCENTAGE = 'CUDA_MPS_ACTIVE_THREAD_PERCENTAGE';

const isNvidia = (device: PluginDevice<GpuPayload>): boolean =>
  device.payload?.gpu.kind.startsWith('nvidia') === true;

/** A GPU's replica device as the whole GPU: its own ID and attributes, no replica. */
function wholeGpu(device: PluginDevice<GpuPayload>): PluginDevice<GpuPayload> {
  const gpu = device.payload?.gpu;
  if (gpu === undefined) return device;
  const { replica: _replica, ...payload } = device.payload as GpuPayload;
  return { ...device, id: gpu.id, attributes: gpu.attributes, payload };
}

/**
 * Time-slicing under DRA (KEP 5075): a GPU the sharing configuration gives replicas is published once, as a device
 * several claims may hold (`allowMultipleAllocations`), with the capacity `timeSlices` = its replicas (each claim
 * takes 1 by default, at most all, in whole slices), instead of once per replica. A claim's share reaches its
 * containers as `KDP_GPU_TIME_SLICES=<held>/<replicas>` and, on NVIDIA, `CUDA_MPS_ACTIVE_THREAD_PERCENTAGE` (its
 * slices in percent of the GPU; CUDA applies it only to clients of an MPS server — plain time-slicing gives every
 * share the whole GPU in turn). `onePerClaim` (`sharing.failRequestsGreaterThanOne`) caps a claim at one slice.
 * Undefined when no GPU of the resource has replicas.
 */
export function gpuDraSharing(
  devices: readonly PluginDevice<GpuPayload>[],
  onePerClaim = false,
): DraSharing<GpuPayload> | undefined {
  const replicas = new Map<string, number>();
  for (const device of devices) {
    const id = device.payload?.gpu.id;
    if (id !== undefined && device.payload?.replica !== undefined)
      replicas.set(id, (replicas.get(id) ?? 0) + 1);
  }
  if (replicas.size === 0) return undefined;
  const replicasOf = (device: PluginDevice<GpuPayload>): number =>
    replicas.get(device.payload?.gpu.id ?? '') ?? 1;
  return {
    devices: (list) =>
      list.filter((device) => (device.payload?.replica ?? 0) === 0).map((device) => wholeGpu(device)),
    capacity(device) {
      const count = replicasOf(device);
      if (count <= 1) return undefined;
      return {
        [TIME_SLICES_CAPACITY]: {
          value: count,
          requestPolicy: { default: 1, validRange: { min: 1, max: onePerClaim ? 1 : count, step: 1 } },
        },
      };
    },
    env(device, share) {
      const count = replicasOf(device);
      const held = Number(share.consumed[TIME_SLICES_CAPACITY] ?? count);
      return {
        [KDP_GPU_TIME_SLICES]: `${held}/${count}`,
        ...(isNvidia(device)
          ? { [CUDA_MPS_ACTIVE_THREAD_PERCENTAGE]: String(Math.floor((100 * held) / count)) }
          : {}),
      };
    },
  };
}
