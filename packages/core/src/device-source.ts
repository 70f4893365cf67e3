import type { PluginDevice } from './plugin-device';

/** Receives every full device list a source produces. */
export type DeviceListener<P> = (devices: readonly PluginDevice<P>[]) => void;

/**
 * Where a resource's devices come from: it pushes FULL lists (never deltas) to its subscriber. A source is
 * started by the first subscription and may stop its work when the last one unsubscribes.
 */
export interface DeviceSource<P = unknown> {
  subscribe(listener: DeviceListener<P>): () => void;
}

/** A source the author feeds by hand with `set(devices)`. */
export interface PushSource<P> extends DeviceSource<P> {
  /** Publishes a new full list to every subscriber (and to later subscribers). */
  set(devices: readonly PluginDevice<P>[]): void;
  /** The last list set, if any. */
  current(): readonly PluginDevice<P>[] | undefined;
}

/** Creates a push source, optionally with an initial list that new subscribers receive at once. */
export function createPushSource<P = unknown>(initial?: readonly PluginDevice<P>[]): PushSource<P> {
  let latest = initial;
  const listeners = new Set<DeviceListener<P>>();
  return {
    set(devices) {
      latest = [...devices];
      for (const listener of [...listeners]) listener(latest);
    },
    current: () => latest,
    subscribe(listener) {
      listeners.add(listener);
      if (latest !== undefined) listener(latest);
      return () => listeners.delete(listener);
    },
  };
}
