import type { ExcludedDevice } from '@kdp/core/plugin';

/** What kind of pool a PCI function can join: network controllers (class 0x02) or accelerators (0x12). */
export type FunctionKind = 'netDevice' | 'accelerator';

/** A PCI function that could join a pool, as read from sysfs (IDs lower-case hex without `0x`, as upstream). */
export interface NicFunction {
  /** "0000:3b:02.0": also the device ID advertised to the kubelet. */
  readonly address: string;
  /** Its real directory relative to the sysfs root (`devices/pci0000:3a/0000:3a:00.0/0000:3b:02.0`). */
  readonly sysfsPath: string;
  readonly kind: FunctionKind;
  /** "8086". */
  readonly vendor?: string;
  /** "154c". */
  readonly device?: string;
  /** Bound driver ("iavf", "vfio-pci", "mlx5_core"); undefined when unbound. */
  readonly driver?: string;
  /** NUMA node; undefined when sysfs says -1 or nothing usable. */
  readonly numaNode?: number;
  /** IOMMU group number. */
  readonly iommuGroup?: number;
  /** The group is a `vfio-noiommu` group (host node /dev/vfio/noiommu-N). */
  readonly noIommu: boolean;
  /** Content of `acpi_index`. */
  readonly acpiIndex?: string;
  /** Network interfaces of this function (`net/`). */
  readonly netdevs: readonly string[];
  /** Link type ("ether", "infiniband", or the number from `type`); from the PF when the VF has no netdev. */
  readonly linkType?: string;
  /** RDMA devices of this function (`infiniband/`), e.g. ["mlx5_3"]. */
  readonly rdmaDevices: readonly string[];
  /**
   * InfiniBand only: the default partition key (`infiniband/<first RDMA device>/ports/1/pkeys/0`, `0x7fff`), what
   * upstream's `pKeys` selector compares.
   */
  readonly pKey?: string;
  /** uio nodes (`uio/`), e.g. ["uio0"]. */
  readonly uioDevices: readonly string[];
  /** Set on virtual functions. */
  readonly vf?: {
    readonly pfAddress: string;
    /** N of the PF's `virtfnN` link: the index that `pf#a-b` ranges select. */
    readonly index: number;
  };
  /** Set on physical functions with SR-IOV. */
  readonly sriov?: { readonly totalVfs: number; readonly numVfs: number };
  /** The PF's first netdev (for a PF: its own); what `pfNames` compares with. */
  readonly pfName?: string;
  /** Whether the PF (or this PF) has carrier; undefined when it has no netdev to ask. */
  readonly pfCarrier?: boolean;
  /** Bridges from the root port to the function's parent, for preferred allocation. */
  readonly pciePath: readonly string[];
}

/** One full read of the node's candidate functions. */
export interface NodeScan {
  readonly functions: readonly NicFunction[];
  /** Functions that can never be advertised (PF with VFs, default-route interface), with the reason. */
  readonly skipped: readonly ExcludedDevice[];
  /** The functions behind `skipped`, as read: their carrier, VF count and driver still matter. */
  readonly skippedFunctions: readonly NicFunction[];
  /** RDMA character devices per RDMA device name (host paths). */
  readonly rdmaCharDevices: ReadonlyMap<string, readonly string[]>;
  /** Whether `kernel/uevent_seqnum` tells of every device and driver change (see `readUeventSupport`). */
  readonly uevents: boolean;
  readonly warnings: readonly string[];
}

/** The host path of a function's sysfs directory, as `excluded` prints it (never the --sysfs-root prefix). */
export function functionPath(address: string): string {
  return `/sys/bus/pci/devices/${address}`;
}
