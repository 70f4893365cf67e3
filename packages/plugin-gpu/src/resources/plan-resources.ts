import type { PluginDevice } from '@kdp/core';
import type { ResourceSet, ResourceSpec } from '@kdp/core/plugin';
import {
  allocateGpus,
  gpuCdiName,
  nvidiaDeviceListStrategy,
  nvidiaVisibleDevices,
} from '../allocate/allocate-gpus';
import { preferredAllocation } from '../allocate/preferred-allocation';
import type { GpuConfig } from '../config';
import type { Gpu, GpuScan } from '../scan/gpu';
import { resourceNameOf } from './resource-names';

/** What every advertised device carries back to Allocate. */
export interface GpuPayload {
  readonly gpu: Gpu;
  /** Replica index with time-slicing, else undefined. */
  readonly replica?: number;
}

/** The replica ID NVIDIA's plugin uses: `<id>::<n>`. */
export function replicaId(id: string, replica: number): string {
  return `${id}::${replica}`;
}

/** One GPU as plugin devices (one per replica with time-slicing); Unhealthy with its problems while it has any. */
export function gpuDevices(gpu: Gpu, replicas: number): PluginDevice<GpuPayload>[] {
  const base = {
    health: gpu.problems.length === 0 ? 'Healthy' : 'Unhealthy',
    ...(gpu.problems.length > 0 ? { problem: gpu.problems.join('; ') } : {}),
    numaNodes: gpu.numaNodes,
    pciePath: gpu.pciePath,
    pciAddress: gpu.pciAddress,
  } as const;
  if (replicas <= 1) return [{ ...base, id: gpu.id, attributes: gpu.attributes, payload: { gpu } }];
  return Array.from({ length: replicas }, (_, replica) => ({
    ...base,
    id: replicaId(gpu.id, replica),
    attributes: { ...gpu.attributes, replica: String(replica) },
    payload: { gpu, replica },
  }));
}

/**
 * The resources of a scan: each GPU under its resource name (kind, model and configuration decide), in name
 * order, each resource with GPU Allocate and GetPreferredAllocation, and one CDI device per physical GPU.
 * NVIDIA resources default to `nvidia.deviceListStrategy` (`NVIDIA_VISIBLE_DEVICES`), the others to device specs.
 */
export function planResources(scan: GpuScan, config: GpuConfig): ResourceSet {
  const byName = new Map<string, PluginDevice<GpuPayload>[]>();
  for (const gpu of scan.gpus) {
    const name = resourceNameOf(gpu, config);
    byName.set(name, [...(byName.get(name) ?? []), ...gpuDevices(gpu, config.sharing.replicas)]);
  }
  const resources = [...byName.keys()].sort().map((name): ResourceSpec<GpuPayload> => {
    const devices = byName.get(name) ?? [];
    const nvidia = devices.some((device) => device.payload?.gpu.kind.startsWith('nvidia'));
    return {
      name,
      devices,
      allocate: ({ devices: chosen }) => allocateGpus(chosen, config),
      preferredAllocation: preferredAllocation(config.sharing.replicas),
      cdi: { deviceName: gpuCdiName },
      ...(nvidia
        ? { deviceListStrategy: nvidiaDeviceListStrategy(config), deviceListEnv: nvidiaVisibleDevices }
        : {}),
    };
  });
  return { resources, excluded: scan.excluded, warnings: scan.warnings };
}
