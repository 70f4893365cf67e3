import type { PluginDevice } from './plugin-device';

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

/** A resource's behaviour under Dynamic Resource Allocation (`serve --mode dra`) beyond its device-plugin hooks. */
export interface ResourceDraHooks<P> {
  /** Devices several claims share by capacity (KEP 5075); absent: every device is exclusive. */
  readonly sharing?: DraSharing<P> | undefined;
  /**
   * A network device's state after prepare (KEP 4817): written to the claim's `status.devices[].networkData` and to
   * its device metadata; absent or undefined: none.
   */
  readonly networkData?:
    | ((device: PluginDevice<P>) => DeviceNetworkData | undefined | Promise<DeviceNetworkData | undefined>)
    | undefined;
}
