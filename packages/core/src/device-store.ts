import type { Device } from '@kdp/api';
import { normalizeDevices, toApiDevice, wireKey, type PluginDevice } from './plugin-device';

/** The latest full device list of one resource, with change notification for ListAndWatch. */
export interface DeviceStore<P> {
  /** Replaces the list; returns true when the kubelet's view changed (order-insensitive, P-14). */
  set(list: readonly PluginDevice<P>[]): { changed: boolean; warnings: readonly string[] };
  /** The current devices keyed by ID (sorted by ID). */
  devices(): ReadonlyMap<string, PluginDevice<P>>;
  /** The current list as ListAndWatch sends it. */
  snapshot(): Device[];
  /** True once a source has delivered a list. */
  hasList(): boolean;
  /** Calls `listener` after every change of the kubelet's view; returns the unsubscribe function. */
  subscribe(listener: (snapshot: Device[]) => void): () => void;
}

/** Creates an empty device store for `resource` (the name appears in warnings). */
export function createDeviceStore<P>(resource: string): DeviceStore<P> {
  let devices: ReadonlyMap<string, PluginDevice<P>> = new Map();
  let key = '';
  let wire: Device[] = [];
  let received = false;
  const listeners = new Set<(snapshot: Device[]) => void>();
  return {
    set(list) {
      const normalized = normalizeDevices(resource, list);
      devices = normalized.devices;
      const nextKey = wireKey(devices);
      const changed = !received || nextKey !== key;
      received = true;
      if (changed) {
        key = nextKey;
        wire = [...devices.values()].map(toApiDevice);
        for (const listener of [...listeners]) listener(wire);
      }
      return { changed, warnings: normalized.warnings };
    },
    devices: () => devices,
    snapshot: () => wire,
    hasList: () => received,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
