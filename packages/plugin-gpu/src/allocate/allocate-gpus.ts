import {
  Code,
  DevicePluginError,
  type ContainerAllocation,
  type DeviceNode,
  type PluginDevice,
} from '@kdp/core';
import type { GpuConfig } from '../config';
import type { GpuPayload } from '../resources/plan-resources';
import type { Gpu } from '../scan/gpu';
import { NVIDIA_CDI_KIND, nvidiaCdiName } from './nvidia-cdi';

/** The physical GPUs behind a container's devices (replicas folded), in request order. */
export function physicalGpus(devices: readonly PluginDevice<GpuPayload>[]): Gpu[] {
  const gpus = devices.flatMap((device) => (device.payload === undefined ? [] : [device.payload.gpu]));
  return gpus.filter((gpu, index) => gpus.findIndex((other) => other.id === gpu.id) === index);
}

/** The shared and own device nodes of GPUs, each once, read-write. */
const nodesOf = (gpus: readonly Gpu[]): DeviceNode[] =>
  [...new Set(gpus.flatMap((gpu) => [...gpu.sharedNodes, ...gpu.deviceNodes]))].map((path) => ({
    containerPath: path,
    hostPath: path,
    permissions: 'rw',
  }));

/**
 * One container's allocation. NVIDIA: `NVIDIA_VISIBLE_DEVICES` and/or CDI names (`deviceListStrategy`), plus
 * the device nodes with `passDeviceSpecs`. AMD: /dev/kfd and the card/render nodes. Intel: card/render nodes
 * and read-only /dev/dri/by-path mounts. Replicas map back to their GPU.
 */
export function allocateGpus(
  devices: readonly PluginDevice<GpuPayload>[],
  config: GpuConfig,
): ContainerAllocation {
  const { replicas, failRequestsGreaterThanOne } = config.sharing;
  if (replicas > 1 && failRequestsGreaterThanOne && devices.length > 1) {
    throw new DevicePluginError(
      Code.InvalidArgument,
      `request for ${devices.length} shared GPU replicas refused: sharing.failRequestsGreaterThanOne allows one replica per container`,
    );
  }
  const gpus = physicalGpus(devices);
  const kind = gpus[0]?.kind;
  if (kind === 'nvidia' || kind === 'nvidia-mig') {
    const strategies = config.nvidia.deviceListStrategy;
    return {
      ...(strategies.includes('envvar')
        ? { envs: { NVIDIA_VISIBLE_DEVICES: gpus.map((gpu) => gpu.id).join(',') } }
        : {}),
      ...(strategies.includes('cdi')
        ? { cdiDevices: gpus.map((gpu) => `${NVIDIA_CDI_KIND}=${nvidiaCdiName(gpu)}`) }
        : {}),
      ...(config.nvidia.passDeviceSpecs ? { devices: nodesOf(gpus) } : {}),
    };
  }
  return { devices: nodesOf(gpus), mounts: gpus.flatMap((gpu) => gpu.mounts) };
}
