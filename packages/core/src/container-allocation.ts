import type { ContainerAllocateResponse } from '@kdp/api';
import type { ContainerAllocation, PluginDevice } from './plugin-device';

/** The default allocation: every device's own `allocation`, merged (first value per key/path wins, as in P-28). */
export function mergeAllocations(
  allocations: readonly (ContainerAllocation | undefined)[],
): ContainerAllocation {
  const envs: Record<string, string> = {};
  const annotations: Record<string, string> = {};
  const mounts = new Map<string, NonNullable<ContainerAllocation['mounts']>[number]>();
  const devices = new Map<string, NonNullable<ContainerAllocation['devices']>[number]>();
  const cdi = new Set<string>();
  for (const allocation of allocations) {
    if (allocation === undefined) continue;
    for (const [key, value] of Object.entries(allocation.envs ?? {})) if (!(key in envs)) envs[key] = value;
    for (const [key, value] of Object.entries(allocation.annotations ?? {})) {
      if (!(key in annotations)) annotations[key] = value;
    }
    for (const mount of allocation.mounts ?? [])
      if (!mounts.has(mount.containerPath)) mounts.set(mount.containerPath, mount);
    for (const node of allocation.devices ?? [])
      if (!devices.has(node.containerPath)) devices.set(node.containerPath, node);
    for (const name of allocation.cdiDevices ?? []) cdi.add(name);
  }
  return {
    envs,
    annotations,
    mounts: [...mounts.values()],
    devices: [...devices.values()],
    cdiDevices: [...cdi],
  };
}

/** The default allocate hook's result for a set of devices. */
export function defaultAllocation(devices: readonly PluginDevice<unknown>[]): ContainerAllocation {
  return mergeAllocations(devices.map((device) => device.allocation));
}

function stringMap(value: unknown, field: string): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object') throw new TypeError(`${field} must be an object of strings`);
  const out: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry !== 'string') throw new TypeError(`${field}.${key} must be a string`);
    out[key] = entry;
  }
  return out;
}

function list<T>(value: unknown, field: string): T[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new TypeError(`${field} must be an array`);
  return value as T[];
}

function path(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw new TypeError(`${field} must be a non-empty string`);
  return value;
}

/** Converts (and checks) what a hook returned into the wire message; throws a TypeError naming the bad field. */
export function toContainerAllocateResponse(allocation: ContainerAllocation): ContainerAllocateResponse {
  if (allocation === null || typeof allocation !== 'object') {
    throw new TypeError('the allocation must be an object');
  }
  return {
    envs: stringMap(allocation.envs, 'envs'),
    annotations: stringMap(allocation.annotations, 'annotations'),
    mounts: list<NonNullable<ContainerAllocation['mounts']>[number]>(allocation.mounts, 'mounts').map(
      (m, i) => ({
        containerPath: path(m?.containerPath, `mounts[${i}].containerPath`),
        hostPath: path(m?.hostPath, `mounts[${i}].hostPath`),
        readOnly: m.readOnly === true,
      }),
    ),
    devices: list<NonNullable<ContainerAllocation['devices']>[number]>(allocation.devices, 'devices').map(
      (d, i) => ({
        containerPath: path(d?.containerPath, `devices[${i}].containerPath`),
        hostPath: path(d?.hostPath, `devices[${i}].hostPath`),
        permissions: d.permissions ?? 'rw',
      }),
    ),
    cdiDevices: list<string>(allocation.cdiDevices, 'cdiDevices').map((name, i) => ({
      name: path(name, `cdiDevices[${i}]`),
    })),
  };
}
