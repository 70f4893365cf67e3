/** Where one device sits: its NUMA nodes and the PCIe bridges above it. */
export interface DeviceLocality {
  /** NUMA nodes the device is attached to; [] when unknown. */
  readonly numaNodes: readonly number[];
  /**
   * PCI addresses of the bridges from the root port down to the device's parent, e.g.
   * ['0000:00:01.0', '0000:01:00.0', '0000:02:08.0']; omitted or [] when unknown.
   */
  readonly pciePath?: readonly string[];
}

/** One GetPreferredAllocation question for a single container, as `choosePreferredAllocation` takes it. */
export interface PreferredAllocationInput {
  /** IDs the kubelet may choose from. */
  readonly available: readonly string[];
  /** IDs that must be in the answer. */
  readonly mustInclude: readonly string[];
  /** Total devices wanted. */
  readonly size: number;
  /** Locality per ID; IDs missing here have unknown locality. */
  readonly locality: ReadonlyMap<string, DeviceLocality>;
  /** NUMA distance matrix (node → node → distance), optional; missing entries are 10 local / 20 remote. */
  readonly distances?: ReadonlyMap<number, ReadonlyMap<number, number>>;
}
