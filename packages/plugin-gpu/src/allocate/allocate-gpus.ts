import { status } from '@grpc/grpc-js';
import { DevicePluginError, type ContainerAllocation, type DeviceNode, type PluginDevice } from '@kdp/core';
import type { Gpu } from '../discovery/gpu';
import type { GpuConfig } from '../gpu-config';
import type { GpuPayload } from './gpu-devices';

/** CDI vendor and class of the NVIDIA devices this plugin writes (the same kind NVIDIA's plugin uses). */
export const NVIDIA_CDI_VENDOR = 'k8s.device-plugin.nvidia.com';
export const NVIDIA_CDI_CLASS = 'gpu';

/** The CDI device name of an NVIDIA GPU or MIG device ("/" is not allowed in CDI names, so MIG uses ":"). */
export function nvidiaCdiName(gpu: Gpu): string {
  return gpu.id.replaceAll('/', ':');
}

/** The physical GPUs behind a container's devices (replicas folded), in request order. */
export function physicalGpus(devices: readonly PluginDevice<GpuPayload>[]): Gpu[] {
  const seen = new Map<string, Gpu>();
  for (const device of devices) {
    const gpu = device.payload?.gpu;
    if (gpu !== undefined && !seen.has(gpu.id)) seen.set(gpu.id, gpu);
  }
  return [...seen.values()];
}

const nodes = (paths: readonly string[]): DeviceNode[] =>
  paths.map((path) => ({ containerPath: path, hostPath: path, permissions: 'rw' }));

const unique = (paths: readonly string[]): string[] => [...new Set(paths)];

/**
 * One container's allocation. NVIDIA: `NVIDIA_VISIBLE_DEVICES` and/or CDI names (`deviceListStrategy`), plus
 * the device nodes with `passDeviceSpecs`. AMD: /dev/kfd and the card/render nodes. Intel: card/render nodes
 * and read-only /dev/dri/by-path mounts. Replicas map back to their GPU.
 */
export function allocateGpus(
  devices: readonly PluginDevice<GpuPayload>[],
  config: GpuConfig,
  cdiKind = `${NVIDIA_CDI_VENDOR}/${NVIDIA_CDI_CLASS}`,
): ContainerAllocation {
  const { replicas, failRequestsGreaterThanOne } = config.sharing;
  if (replicas > 1 && failRequestsGreaterThanOne && devices.length > 1) {
    throw new DevicePluginError(
      status.INVALID_ARGUMENT,
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
        ? { cdiDevices: gpus.map((gpu) => `${cdiKind}=${nvidiaCdiName(gpu)}`) }
        : {}),
      ...(config.nvidia.passDeviceSpecs
        ? { devices: nodes(unique(gpus.flatMap((gpu) => [...gpu.sharedNodes, ...gpu.deviceNodes]))) }
        : {}),
    };
  }
  return {
    devices: nodes(unique(gpus.flatMap((gpu) => [...gpu.sharedNodes, ...gpu.deviceNodes]))),
    mounts: gpus.flatMap((gpu) => gpu.mounts),
  };
}
