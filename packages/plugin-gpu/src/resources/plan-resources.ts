import { gpuClaimConfig } from '../dra/gpu-claim-config';
import type { PluginDevice } from '@kdp/core';
import type { ResourceSet, ResourceSpec } from '@kdp/core/plugin';
import {
  allocateGpus,
  gpuCdiName,
  nvidiaDeviceListStrategy,
  nvidiaVisibleDevices,
} from '../allocate/allocate-gpus';
import { memoizeAllocation } from '../allocate/memoize-allocation';
import { preferredAllocation } from '../allocate/preferred-allocation';
import type { GpuConfig } from '../config';
import { xidTaintEffect } from '../health/xid-taint-effect';
import type { Gpu, GpuScan } from '../scan/gpu';
import { amdDraPool } from './amd-dra-pool';
import { gpuDraSharing } from './dra-sharing';
import type { GpuPayload } from './gpu-payload';
import { gpuIndexes } from './gpu-indexes';
import { planMonitoring } from './plan-monitoring';
import { planTimeSlicing } from './plan-time-slicing';
import { resourceNameOf } from './resource-names';

/** The replica ID NVIDIA's plugin uses: `<id>::<n>`. */
export function replicaId(id: string, replica: number): string {
  return `${id}::${replica}`;
}

/** Intel's device ID of a share of a GPU: its DRM card and the share, `card0-0`. */
export function intelDeviceId(gpu: Gpu, share: number): string {
  return `${gpu.attributes['card'] ?? gpu.id}-${share}`;
}

/**
 * One GPU as plugin devices (one per replica with time-slicing, IDs `<id>::<n>`); Unhealthy with its problems while
 * it has any. `index` is carried in the payload for NVIDIA's `index` device IDs. `asIntel`: Intel's IDs
 * (`card0-0`, a share each) for an Intel GPU, as intel-gpu-plugin advertises them.
 */
export function gpuDevices(
  gpu: Gpu,
  replicas: number,
  index?: string,
  asIntel = false,
): PluginDevice<GpuPayload>[] {
  const base = {
    health: gpu.problems.length === 0 ? 'Healthy' : 'Unhealthy',
    ...(gpu.problems.length > 0 ? { problem: gpu.problems.join('; ') } : {}),
    numaNodes: gpu.numaNodes,
    pciePath: gpu.pciePath,
    pciAddress: gpu.pciAddress,
  } as const;
  const payload = { gpu, ...(index !== undefined ? { index } : {}) };
  const intel = asIntel && (gpu.kind === 'i915' || gpu.kind === 'xe');
  if (replicas <= 1)
    return [{ ...base, id: intel ? intelDeviceId(gpu, 0) : gpu.id, attributes: gpu.attributes, payload }];
  return Array.from({ length: replicas }, (_, replica) => ({
    ...base,
    id: intel ? intelDeviceId(gpu, replica) : replicaId(gpu.id, replica),
    attributes: { ...gpu.attributes, replica: String(replica) },
    payload: { ...payload, replica },
  }));
}

/**
 * The resources of a scan: each GPU under its resource name (kind, model and configuration decide, then
 * time-slicing: per-resource replicas, `rename`, `.shared` with `renameByDefault`), in name order, each resource
 * with GPU Allocate and GetPreferredAllocation, and one CDI device per physical GPU. NVIDIA resources default to
 * `nvidia.deviceListStrategy` (`NVIDIA_VISIBLE_DEVICES`), naming GPUs by `nvidia.deviceIDStrategy`; the others to
 * device specs. With `intel.monitoring`, Intel's monitoring resources too (planMonitoring).
 */
export function planResources(scan: GpuScan, config: GpuConfig): ResourceSet {
  const indexes = gpuIndexes(scan.gpus);
  const unshared = scan.gpus.map((gpu) => ({
    gpu,
    name: resourceNameOf(gpu, config),
    index: indexes.get(gpu.id),
  }));
  const sharing = planTimeSlicing(unshared, config.sharing);
  const byName = new Map<string, { devices: PluginDevice<GpuPayload>[]; replicas: number }>();
  unshared.forEach(({ gpu, index }, i) => {
    const { name, replicas } = sharing.shares[i] ?? { name: resourceNameOf(gpu, config), replicas: 1 };
    const entry = byName.get(name) ?? { devices: [], replicas: 1 };
    entry.devices.push(...gpuDevices(gpu, replicas, index, config.anchor === 'intel-gpu-plugin'));
    byName.set(name, { devices: entry.devices, replicas: Math.max(entry.replicas, replicas) });
  });
  const { deviceIDStrategy } = config.nvidia;
  const resources = [...byName.keys()].sort().map((name): ResourceSpec<GpuPayload> => {
    const { devices, replicas } = byName.get(name) ?? { devices: [], replicas: 1 };
    const nvidia = devices.some((device) => device.payload?.gpu.kind.startsWith('nvidia'));
    const amd = devices.some((device) => device.payload?.gpu.kind === 'amd');
    const sharing = gpuDraSharing(devices, config.sharing.failRequestsGreaterThanOne);
    // Pure in the devices and this plan's configuration: each combination is worked out once per scan.
    const allocate = memoizeAllocation((chosen: readonly PluginDevice<GpuPayload>[]) =>
      allocateGpus(chosen, config, name),
    );
    return {
      name,
      devices,
      allocate: ({ devices: chosen }) => allocate(chosen),
      preferredAllocation: preferredAllocation(replicas),
      cdi: { deviceName: (device) => gpuCdiName(device, deviceIDStrategy) },
      // Under DRA, a GPU lost by an Xid evicts its pods, MI300-class GPUs and their compute partitions share
      // counters, and a time-sliced GPU is one device claims share by capacity;
      // a claim's GpuConfig sets env and NVIDIA's time-slice interval (the device-plugin API ignores all).
      dra: {
        config: gpuClaimConfig,
        taintEffect: xidTaintEffect,
        ...(amd ? { pool: amdDraPool } : {}),
        ...(sharing !== undefined ? { sharing } : {}),
      },
      ...(nvidia
        ? {
            deviceListStrategy: nvidiaDeviceListStrategy(config),
            deviceListEnv: (chosen: readonly PluginDevice<GpuPayload>[]) =>
              nvidiaVisibleDevices(chosen, deviceIDStrategy),
          }
        : {}),
    };
  });
  return {
    resources: [...resources, ...planMonitoring(scan.gpus, config)].sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    ),
    excluded: scan.excluded,
    warnings: [...scan.warnings, ...sharing.warnings],
  };
}
