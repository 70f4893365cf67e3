import { DeviceIdMaxLength, Healthy, Unhealthy, type Device } from '@kdp/api';

/** A device's health as the kubelet reads it: exactly `Healthy` or `Unhealthy` (P-15). */
export type DeviceHealth = typeof Healthy | typeof Unhealthy;

/** A device node to expose in the container (`DeviceSpec`). */
export interface DeviceNode {
  readonly containerPath: string;
  readonly hostPath: string;
  /** Any of `r`, `w`, `m`; default `rw`. */
  readonly permissions?: string;
}

/** A bind mount into the container. */
export interface DeviceMount {
  readonly containerPath: string;
  readonly hostPath: string;
  readonly readOnly?: boolean;
}

/** What a container gets for its devices; every field optional. Merged by the default Allocate. */
export interface ContainerAllocation {
  readonly envs?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly mounts?: readonly DeviceMount[];
  readonly devices?: readonly DeviceNode[];
  /** Fully qualified CDI device names, `vendor.com/class=name` (KEP-4009). */
  readonly cdiDevices?: readonly string[];
}

/** One device as a plugin author declares it; `P` is whatever the plugin needs later to allocate it. */
export interface PluginDevice<P = unknown> {
  /** Unique within the resource; 63 characters at most by the kubelet's documentation (P-18). */
  readonly id: string;
  readonly health: DeviceHealth;
  /** NUMA nodes the device is attached to; empty or absent when unknown. */
  readonly numaNodes?: readonly number[];
  /** PCI addresses from the root port down to the device's parent; used by preferred allocation. */
  readonly pciePath?: readonly string[];
  /** What the default Allocate gives a container holding this device. */
  readonly allocation?: ContainerAllocation;
  /** The author's own data, handed back to the allocate and preStartContainer hooks. */
  readonly payload?: P;
  /** Why the device is Unhealthy, in words; logged when its health changes and printed by `discover`. */
  readonly problem?: string;
  /** The PCI function (`0000:3b:00.0`), for `discover`. */
  readonly pciAddress?: string;
  /** Free-form facts for `discover` (vendor, model, driver, …). */
  readonly attributes?: Readonly<Record<string, string>>;
}

/** Result of {@link normalizeDevices}: the devices keyed by ID in ID order, plus what was wrong. */
export interface NormalizedDevices<P> {
  readonly devices: ReadonlyMap<string, PluginDevice<P>>;
  readonly warnings: readonly string[];
}

/**
 * Checks a full list from a source: drops entries without an ID or with a health other than the two exact
 * strings, keeps the last of duplicate IDs (as the kubelet does, P-14) and warns about IDs over 63 characters.
 */
export function normalizeDevices<P>(
  resource: string,
  list: readonly PluginDevice<P>[],
): NormalizedDevices<P> {
  const warnings: string[] = [];
  const byId = new Map<string, PluginDevice<P>>();
  for (const device of list) {
    if (typeof device?.id !== 'string' || device.id === '') {
      warnings.push(`${resource}: a device without an ID was dropped`);
      continue;
    }
    if (device.health !== Healthy && device.health !== Unhealthy) {
      warnings.push(
        `${resource}: device ${device.id} has health ${JSON.stringify(device.health)}; ` +
          `only "${Healthy}" and "${Unhealthy}" are allowed, so it was dropped`,
      );
      continue;
    }
    if (device.id.length > DeviceIdMaxLength) {
      warnings.push(`${resource}: device ID ${device.id} is longer than ${DeviceIdMaxLength} characters`);
    }
    if (byId.has(device.id)) {
      warnings.push(`${resource}: device ID ${device.id} appears more than once; the last entry wins`);
      byId.delete(device.id);
    }
    byId.set(device.id, device);
  }
  const sorted = new Map([...byId.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { devices: sorted, warnings };
}

/** The kubelet's view of a device (`v1beta1.Device`). */
export function toApiDevice(device: PluginDevice<unknown>): Device {
  const nodes = device.numaNodes ?? [];
  return {
    ID: device.id,
    health: device.health,
    topology: nodes.length > 0 ? { nodes: nodes.map((id) => ({ ID: id })) } : undefined,
  };
}

/** A string that is equal for two lists exactly when the kubelet would see no difference (order-insensitive). */
export function wireKey(devices: ReadonlyMap<string, PluginDevice<unknown>>): string {
  const parts: string[] = [];
  for (const device of devices.values()) {
    const nodes = [...(device.numaNodes ?? [])].sort((a, b) => a - b).join(',');
    parts.push(`${device.id}\u0000${device.health}\u0000${nodes}`);
  }
  return parts.join('\u0001');
}
