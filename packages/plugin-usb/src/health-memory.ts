import type { PluginDevice } from '@kdp/core';
import type { DevicePayload } from './device-payload';

/** Remembers allocated devices so that an unplug turns them Unhealthy instead of making them vanish. */
export interface HealthMemory {
  /** Records that a container was given these devices (by advertised ID). */
  allocated(devices: readonly PluginDevice<DevicePayload>[]): void;
  /**
   * The list to advertise: the present devices (Healthy), plus every share of an allocated physical device that
   * is gone (Unhealthy, last known payload) until it returns with the same ID, i.e. the same serial or port.
   */
  apply(present: readonly PluginDevice<DevicePayload>[]): PluginDevice<DevicePayload>[];
}

/** Creates the memory of one resource (lost on restart, as the kubelet re-learns the list anyway). */
export function createHealthMemory(): HealthMemory {
  const allocatedBases = new Set<string>();
  const lastKnown = new Map<string, PluginDevice<DevicePayload>>();
  return {
    allocated(devices) {
      for (const device of devices) {
        if (device.payload !== undefined) allocatedBases.add(device.payload.baseId);
      }
    },
    apply(present) {
      const ids = new Set(present.map((d) => d.id));
      const out = [...present];
      for (const [id, device] of lastKnown) {
        if (ids.has(id)) continue;
        if (device.payload !== undefined && allocatedBases.has(device.payload.baseId)) {
          out.push({ ...device, health: 'Unhealthy' });
        } else lastKnown.delete(id);
      }
      for (const device of present) lastKnown.set(device.id, device);
      return out;
    },
  };
}
