import {
  Code,
  DevicePluginError,
  type ContainerAllocation,
  type DeviceNode,
  type PluginDevice,
} from '@kdp/core';
import type { DeviceListStrategy } from '@kdp/core/plugin';
import type { GpuConfig } from '../config';
import type { GpuPayload } from '../resources/plan-resources';
import type { Gpu } from '../scan/gpu';

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
 * One container's device specs, for every vendor and every strategy (the runtime keeps them for `device-specs`,
 * turns them into CDI specs for `cdi`, and drops them otherwise): the shared control nodes (`/dev/nvidiactl`…,
 * `/dev/kfd`) and each GPU's own nodes, plus Intel's read-only `/dev/dri/by-path` mounts. Replicas map back to
 * their GPU; with `sharing.failRequestsGreaterThanOne` a container asking for two replicas is refused.
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
  return { devices: nodesOf(gpus), mounts: gpus.flatMap((gpu) => gpu.mounts) };
}

/** `NVIDIA_VISIBLE_DEVICES` of a container (the `envvar` strategy): its GPUs' IDs, replicas folded. */
export function nvidiaVisibleDevices(devices: readonly PluginDevice<GpuPayload>[]): Record<string, string> {
  return {
    NVIDIA_VISIBLE_DEVICES: physicalGpus(devices)
      .map((gpu) => gpu.id)
      .join(','),
  };
}

/** The default strategies of NVIDIA resources: `nvidia.deviceListStrategy`, plus `device-specs` with `passDeviceSpecs`. */
export function nvidiaDeviceListStrategy(config: GpuConfig): DeviceListStrategy[] {
  const { deviceListStrategy, passDeviceSpecs } = config.nvidia;
  return [...deviceListStrategy, ...(passDeviceSpecs ? (['device-specs'] as const) : [])];
}

/** The CDI device name of a GPU or MIG device ("/" is not allowed in CDI names, so MIG uses ":"). */
export function gpuCdiName(device: PluginDevice<GpuPayload>): string {
  return (device.payload?.gpu.id ?? device.id).replaceAll('/', ':');
}
