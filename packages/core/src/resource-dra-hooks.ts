import type { ContainerAllocation, PluginDevice } from './plugin-device';

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

/** The effect of a device taint: keep new claims off the device, or also evict the pods already using it. */
export type DeviceTaintEffect = 'NoSchedule' | 'NoExecute';

/** Optional behaviour of a resource under Dynamic Resource Allocation (`serve --mode dra`); the device-plugin mode ignores it. */
export interface ResourceDraHooks<P = unknown> {
  /**
   * The effect of the `kdp.dev/unhealthy` taint an Unhealthy device gets in its ResourceSlice: `NoExecute` when the
   * device is lost to its pods (an Xid meaning the GPU fell off the bus), so they are evicted. Default `NoSchedule`.
   */
  readonly taintEffect?: (device: PluginDevice<P>) => DeviceTaintEffect;
  /**
   * The pool DRA publishes for the source's device list (every device, healthy or not; an Unhealthy one is published
   * with a `kdp.dev/unhealthy` taint): a device and each of its partitions as devices of their own, consuming
   * counters so that the scheduler never allocates two that overlap. Default: the source's devices, no counters.
   */
  readonly pool?: (devices: readonly PluginDevice<P>[]) => DraPool<P>;
  /**
   * Makes a claim's devices exist before their CDI edits are written (a MIG instance created at its placement);
   * answers, per device in order, what a container needs for it, or undefined for the resource's allocate hook's
   * answer. Must be idempotent: a claim prepared again (a kubelet retry, a reboot) reuses what is there. Throw to
   * fail the claim.
   */
  readonly prepare?: (context: DraPrepareContext<P>) => Promise<readonly (ContainerAllocation | undefined)[]>;
  /** Undoes `prepare` for a claim's devices (a MIG instance destroyed); nothing there is not an error. */
  readonly unprepare?: (context: DraUnprepareContext<P>) => Promise<void>;
}

/** What a resource's DRA `prepare` hook receives: one claim's devices of the resource. */
export interface DraPrepareContext<P = unknown> {
  /** The resource's name (`nvidia.com/gpu`). */
  readonly resource: string;
  /** The claim's devices of this resource, as the pool published them (partitions included). */
  readonly devices: readonly PluginDevice<P>[];
  /** The claim's UID. */
  readonly claimUid: string;
  /** Aborts when the process shuts down. */
  readonly signal: AbortSignal;
}

/** What a resource's DRA `unprepare` hook receives: one claim's devices of the resource that are still known. */
export interface DraUnprepareContext<P = unknown> {
  /** The resource's name. */
  readonly resource: string;
  /** The claim's devices of this resource that its pool still publishes. */
  readonly devices: readonly PluginDevice<P>[];
  /** The claim's UID. */
  readonly claimUid: string;
}
