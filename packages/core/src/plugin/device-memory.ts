import type { PluginDevice } from '../plugin-device';
import type { ExcludedDevice } from './discover-result';

/** Options of {@link createDeviceMemory}. */
export interface DeviceMemoryOptions {
  /** How long a vanished device stays advertised as Unhealthy; `Infinity`: until it returns. Read at every scan. */
  readonly graceMs: number | (() => number);
  /** Which vanished devices are kept: all, or only those handed to a container. */
  readonly keep: 'all' | 'allocated';
  /** Devices first seen Unhealthy are held back until they were healthy once. */
  readonly holdUntilHealthy: boolean;
}

/** What to advertise for one resource after a scan. */
export interface Advertised<P> {
  /** The devices to advertise: the scan's, plus vanished ones still remembered (Unhealthy). */
  readonly devices: readonly PluginDevice<P>[];
  /** Devices of the scan held back because they were never healthy. */
  readonly held: readonly PluginDevice<P>[];
}

/** What the runtime remembers of each resource's devices between scans. */
export interface DeviceMemory {
  /**
   * Folds in a resource's devices from a scan at time `now`. A remembered device missing from the scan that
   * `retired` accepts is gone for good: forgotten at once instead of being kept Unhealthy.
   */
  advertise<P>(
    resource: string,
    devices: readonly PluginDevice<P>[],
    now: number,
    retired?: (device: PluginDevice<unknown>) => boolean,
  ): Advertised<P>;
  /** Records that these devices were handed to a container. */
  allocated(resource: string, ids: readonly string[]): void;
  /** Whether vanished devices of a resource are still remembered. */
  remembers(resource: string): boolean;
  /** Forgets a resource. */
  forget(resource: string): void;
  /**
   * Stops remembering the devices advertised so far (vanished ones are no longer kept): a new configuration
   * may rename every device, and the old IDs must not linger. What was healthy or allocated stays known.
   */
  forgetVanished(): void;
}

interface ResourceMemory {
  last: Map<string, PluginDevice<unknown>>;
  readonly goneSince: Map<string, number>;
  readonly everHealthy: Set<string>;
  readonly allocated: Set<string>;
}

/** The problem a remembered device is advertised with. */
export const VANISHED = 'no longer found by the scan';

/** Creates the memory; see {@link DeviceMemoryOptions} for the policies. */
export function createDeviceMemory(options: DeviceMemoryOptions): DeviceMemory {
  const resources = new Map<string, ResourceMemory>();
  const memoryOf = (resource: string): ResourceMemory => {
    let memory = resources.get(resource);
    if (memory === undefined) {
      memory = { last: new Map(), goneSince: new Map(), everHealthy: new Set(), allocated: new Set() };
      resources.set(resource, memory);
    }
    return memory;
  };
  return {
    advertise<P>(
      resource: string,
      devices: readonly PluginDevice<P>[],
      now: number,
      retired?: (device: PluginDevice<unknown>) => boolean,
    ): Advertised<P> {
      const memory = memoryOf(resource);
      const graceMs = typeof options.graceMs === 'function' ? options.graceMs() : options.graceMs;
      const present = new Set<string>();
      const out: PluginDevice<P>[] = [];
      const held: PluginDevice<P>[] = [];
      for (const device of devices) {
        present.add(device.id);
        if (device.health === 'Healthy') memory.everHealthy.add(device.id);
        if (options.holdUntilHealthy && !memory.everHealthy.has(device.id)) held.push(device);
        else out.push(device);
      }
      const next = new Map<string, PluginDevice<unknown>>(out.map((device) => [device.id, device]));
      for (const [id, old] of memory.last) {
        if (present.has(id)) {
          memory.goneSince.delete(id);
          continue;
        }
        const since = memory.goneSince.get(id) ?? now;
        const wanted = options.keep === 'all' || memory.allocated.has(id);
        if (!wanted || now - since >= graceMs || retired?.(old) === true) {
          memory.goneSince.delete(id);
          memory.everHealthy.delete(id);
          memory.allocated.delete(id);
          continue;
        }
        memory.goneSince.set(id, since);
        const kept = { ...old, health: 'Unhealthy', problem: VANISHED } as PluginDevice<P>;
        out.push(kept);
        next.set(id, old);
      }
      memory.last = next;
      return { devices: out, held };
    },
    allocated(resource, ids) {
      const memory = memoryOf(resource);
      for (const id of ids) memory.allocated.add(id);
    },
    remembers: (resource) => (resources.get(resource)?.goneSince.size ?? 0) > 0,
    forget: (resource) => void resources.delete(resource),
    forgetVanished() {
      for (const memory of resources.values()) {
        memory.last = new Map();
        memory.goneSince.clear();
      }
    },
  };
}

/** The `excluded` entry of a device held back because it was never healthy. */
export function heldExclusion(device: PluginDevice<unknown>): ExcludedDevice {
  return {
    path: device.pciAddress === undefined ? device.id : `/sys/bus/pci/devices/${device.pciAddress}`,
    reason: `${device.id}: ${device.problem ?? 'unhealthy'} (advertised once healthy)`,
  };
}
