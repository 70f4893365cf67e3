import type { ResourceClaimConfig } from './claim-config-schema';
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
  /** Devices several claims share by capacity (KEP 5075); absent: every device is exclusive. */
  readonly sharing?: DraSharing<P> | undefined;
  /**
   * A network device's state after prepare (KEP 4817): written to the claim's `status.devices[].networkData` and to
   * its device metadata; absent or undefined: none.
   */
  readonly networkData?:
    | ((device: PluginDevice<P>) => DeviceNetworkData | undefined | Promise<DeviceNetworkData | undefined>)
    | undefined;
  /**
   * The typed per-claim configuration the resource takes (`opaque.parameters` of its driver) and how it applies at
   * prepare. Absent: an opaque configuration for a device of this resource fails the claim.
   */
  readonly config?: ResourceClaimConfig<P> | undefined;
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

/**
 * How a request for a shared capacity is rounded and bounded (`resource.k8s.io/v1` `CapacityRequestPolicy`, KEP
 * 5075): `default` when a claim asks for none, then either `validRange` (at least `min`, at most `max`, `min` plus a
 * multiple of `step`) or `validValues` (ascending; rounded up to the next one). Quantities as in a ResourceSlice.
 */
export interface CapacityRequestPolicy {
  /** What a claim that requests none of the capacity consumes. */
  readonly default?: string | number | undefined;
  /** A request is rounded up to `min` plus a whole number of `step`s, and refused above `max`. */
  readonly validRange?:
    | {
        readonly min: string | number;
        readonly max?: string | number | undefined;
        readonly step?: string | number | undefined;
      }
    | undefined;
  /** The values a request may consume, ascending: it is rounded up to the next one, refused above the last. */
  readonly validValues?: readonly (string | number)[] | undefined;
}

/** One capacity of a device several claims may hold: its total and how each claim's share of it is requested. */
export interface SharedCapacity {
  /** The device's total, a quantity (`80Gi`, `4`). */
  readonly value: string | number;
  /** How a claim's request for it is rounded and bounded; absent: any amount, the whole capacity by default. */
  readonly requestPolicy?: CapacityRequestPolicy | undefined;
}

/** One claim's share of a shared device at prepare: its ID and the capacity the scheduler gave it. */
export interface DeviceShare {
  /** The allocation result's `shareID`, unique among the device's shares. */
  readonly id: string;
  /** The allocation result's `consumedCapacity`, by capacity name (`{ memory: '20Gi' }`). */
  readonly consumed: Readonly<Record<string, string>>;
}

/**
 * Shared capacity under DRA (KEP 5075): the devices that several claims may hold at once, each claim a share of
 * their capacities (`allowMultipleAllocations`), and what a container gets for its share.
 */
export interface DraSharing<P> {
  /**
   * The devices DRA publishes, from the resource's device list: a device the device-plugin API advertises once per
   * replica is one shared device here. Default: the list as it is.
   */
  readonly devices?: ((devices: readonly PluginDevice<P>[]) => readonly PluginDevice<P>[]) | undefined;
  /** The capacities of a device several claims may hold; undefined: the device is exclusive. */
  readonly capacity: (device: PluginDevice<P>) => Readonly<Record<string, SharedCapacity>> | undefined;
  /**
   * Environment for one share, under exactly these names (a runtime or library reads them, e.g. CUDA's
   * `CUDA_MPS_PINNED_DEVICE_MEM_LIMIT`); absent: none.
   */
  readonly env?:
    ((device: PluginDevice<P>, share: DeviceShare) => Readonly<Record<string, string>>) | undefined;
}

/** A network device's state as a ResourceClaim's `status.devices[].networkData` reports it (KEP 4817). */
export interface DeviceNetworkData {
  /** The interface name on the node (`ens1f0v3`), or in the pod once moved there. */
  readonly interfaceName?: string | undefined;
  /** IP addresses in CIDR notation (`192.0.2.5/24`). */
  readonly ips?: readonly string[] | undefined;
  /** The MAC (or InfiniBand) hardware address. */
  readonly hardwareAddress?: string | undefined;
}
