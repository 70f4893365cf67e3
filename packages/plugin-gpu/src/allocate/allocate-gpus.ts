import { posix } from 'node:path';
import {
  Code,
  DevicePluginError,
  type ContainerAllocation,
  type DeviceNode,
  type PluginDevice,
} from '@kdp/core';
import type { DeviceListStrategy } from '@kdp/core/plugin';
import type { GpuConfig } from '../config';
import type { GpuPayload } from '../resources/gpu-payload';
import type { Gpu } from '../scan/gpu';

/** The physical GPUs behind a container's devices (replicas folded), in request order. */
export function physicalGpus(devices: readonly PluginDevice<GpuPayload>[]): Gpu[] {
  const gpus = devices.flatMap((device) => (device.payload === undefined ? [] : [device.payload.gpu]));
  return gpus.filter((gpu, index) => gpus.findIndex((other) => other.id === gpu.id) === index);
}

/**
 * The shared and own device nodes of GPUs, each once, read-write. NVIDIA's are under `nvidia.devRoot` (default
 * `nvidia.driverRoot`) on the host, as NVIDIA's plugin hands them over: `/run/nvidia/driver/dev/nvidia0` for the
 * container's `/dev/nvidia0`.
 */
function nodesOf(gpus: readonly Gpu[], config: GpuConfig): DeviceNode[] {
  const hostRoot = config.nvidia.devRoot ?? config.nvidia.driverRoot;
  const nodes = new Map<string, string>();
  for (const gpu of gpus)
    for (const path of [...gpu.sharedNodes, ...gpu.deviceNodes])
      nodes.set(path, gpu.kind.startsWith('nvidia') ? posix.join(hostRoot, path) : path);
  return [...nodes].map(([containerPath, hostPath]) => ({ containerPath, hostPath, permissions: 'rw' }));
}

/**
 * One container's device specs, for every vendor and every strategy (the runtime keeps them for `device-specs`,
 * turns them into CDI specs for `cdi`, and drops them otherwise): the shared control nodes (`/dev/nvidiactl`…,
 * `/dev/kfd`) and each GPU's own nodes, plus Intel's read-only `/dev/dri/by-path` mounts. Replicas map back to
 * their GPU; with `sharing.failRequestsGreaterThanOne` a container asking for more than one device of a resource
 * that holds replicas is refused, as NVIDIA's plugin does.
 */
export function allocateGpus(
  devices: readonly PluginDevice<GpuPayload>[],
  config: GpuConfig,
  resource = 'shared GPU replicas',
): ContainerAllocation {
  const replicas = devices.some((device) => device.payload?.replica !== undefined);
  if (replicas && config.sharing.failRequestsGreaterThanOne && devices.length > 1) {
    throw new DevicePluginError(
      Code.InvalidArgument,
      `request for '${resource}: ${devices.length}' too large: maximum request size for shared resources is 1 (sharing.failRequestsGreaterThanOne)`,
    );
  }
  const gpus = physicalGpus(devices);
  return { devices: nodesOf(gpus, config), mounts: gpus.flatMap((gpu) => gpu.mounts) };
}

/** How NVIDIA GPUs are named to the runtime (NVIDIA's `deviceIDStrategy`): UUID (`GPU-…`, `MIG-…`) or index (`0`, `0:1`). */
export type NvidiaDeviceIdStrategy = GpuConfig['nvidia']['deviceIDStrategy'];

/** The name of a device's GPU under a device ID strategy: its index with `index` (NVIDIA GPUs that have one), else its ID. */
function runtimeId(device: PluginDevice<GpuPayload>, strategy: NvidiaDeviceIdStrategy): string {
  const { gpu, index } = device.payload ?? {};
  if (strategy === 'index' && index !== undefined && gpu?.kind.startsWith('nvidia') === true) return index;
  return gpu?.id ?? device.id;
}

/**
 * `NVIDIA_VISIBLE_DEVICES` of a container (the `envvar` strategy): its GPUs, replicas folded, in request order,
 * as UUIDs (`GPU-…`, MIG IDs as they are) or, with the `index` strategy, as indexes (`0`, `0:1`), as NVIDIA's plugin.
 */
export function nvidiaVisibleDevices(
  devices: readonly PluginDevice<GpuPayload>[],
  strategy: NvidiaDeviceIdStrategy = 'uuid',
): Record<string, string> {
  return {
    NVIDIA_VISIBLE_DEVICES: [...new Set(devices.map((device) => runtimeId(device, strategy)))].join(','),
  };
}

/** The default strategies of NVIDIA resources: `nvidia.deviceListStrategy`, plus `device-specs` with `passDeviceSpecs`. */
export function nvidiaDeviceListStrategy(config: GpuConfig): DeviceListStrategy[] {
  const { deviceListStrategy, passDeviceSpecs } = config.nvidia;
  return [...deviceListStrategy, ...(passDeviceSpecs ? (['device-specs'] as const) : [])];
}

/**
 * The CDI device name of a GPU or MIG device: its ID, or its index under NVIDIA's `index` strategy ("/" is not
 * allowed in CDI names, so MIG uses ":").
 */
export function gpuCdiName(
  device: PluginDevice<GpuPayload>,
  strategy: NvidiaDeviceIdStrategy = 'uuid',
): string {
  return runtimeId(device, strategy).replaceAll('/', ':');
}
