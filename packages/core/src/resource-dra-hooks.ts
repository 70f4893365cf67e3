import type { PluginDevice } from './plugin-device';

/** A named set of counters a pool offers its devices (KEP 4815 `sharedCounters`); counters are quantities. */
export interface DraCounterSet {
  /** A DNS label, unique in the pool. */
  readonly name: string;
  /** Counter name (a DNS label) → how much of it there is (`8`, `192Gi`). */
  readonly counters: Readonly<Record<string, string | number>>;
}

/** What a device takes from one counter set of its pool while it is allocated (KEP 4815 `consumesCounters`). */
export interface DraCounterConsumption {
  /** The name of a counter set of the same pool. */
  readonly counterSet: string;
  /** Counter name → how much of it the device takes. */
  readonly counters: Readonly<Record<string, string | number>>;
}

/** A device as DRA publishes it: a plugin device, and what it consumes of the pool's counter sets. */
export interface DraPoolDevice<P = unknown> extends PluginDevice<P> {
  /** At most 2 entries, one per counter set. */
  readonly consumesCounters?: readonly DraCounterConsumption[];
}

/** What a resource publishes as its DRA pool: its devices (partitions of one device each its own) and counter sets. */
export interface DraPool<P = unknown> {
  /** The devices to publish and prepare; unique IDs, as in the source's list. */
  readonly devices: readonly DraPoolDevice<P>[];
  /** The counter sets the devices' `consumesCounters` name. */
  readonly sharedCounters?: readonly DraCounterSet[];
}

/** Optional behaviour of a resource under Dynamic Resource Allocation (`serve --mode dra`); the device-plugin mode ignores it. */
export interface ResourceDraHooks<P = unknown> {
  /**
   * The pool DRA publishes for the source's device list (every device, healthy or not; only healthy devices are
   * published, every counter set is): a device and each of its partitions as devices of their own, consuming
   * counters so that the scheduler never allocates two that overlap. Default: the source's devices, no counters.
   */
  readonly pool?: (devices: readonly PluginDevice<P>[]) => DraPool<P>;
}
