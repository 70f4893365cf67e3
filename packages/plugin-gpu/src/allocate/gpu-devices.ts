import type { DeviceHealth, PluginDevice } from '@kdp/core';
import type { Gpu } from '../discovery/gpu';
import type { GpuConfig } from '../gpu-config';
import { resourceNameOf } from './resource-names';

/** What every advertised device carries back to Allocate. */
export interface GpuPayload {
  readonly resource: string;
  readonly gpu: Gpu;
  /** Replica index with time-slicing, else undefined. */
  readonly replica?: number;
}

/** One GPU as the tracker reports it: the GPU and its health now. */
export interface TrackedGpu {
  readonly gpu: Gpu;
  readonly health: DeviceHealth;
  readonly problems: readonly string[];
}

/** The replica ID NVIDIA's plugin uses: `<id>::<n>`. */
export function replicaId(id: string, replica: number): string {
  return `${id}::${replica}`;
}

/** Turns tracked GPUs into plugin devices (replicas expanded), each knowing its resource. */
export function toPluginDevices(gpus: readonly TrackedGpu[], config: GpuConfig): PluginDevice<GpuPayload>[] {
  const replicas = config.sharing.replicas;
  const out: PluginDevice<GpuPayload>[] = [];
  for (const { gpu, health } of gpus) {
    const resource = resourceNameOf(gpu, config);
    const base = { health, numaNodes: gpu.numaNodes, pciePath: gpu.pciePath };
    if (replicas <= 1) {
      out.push({ ...base, id: gpu.id, payload: { resource, gpu } });
      continue;
    }
    for (let replica = 0; replica < replicas; replica++) {
      out.push({ ...base, id: replicaId(gpu.id, replica), payload: { resource, gpu, replica } });
    }
  }
  return out;
}
