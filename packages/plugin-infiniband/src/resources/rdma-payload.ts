import type { DeviceLocality } from '@kdp/topology';

/** What a device carries to the hooks: the RDMA devices (ibdev names) it grants, and where they sit. */
export interface RdmaPayload {
  readonly ibdevs: readonly string[];
  /** Every NUMA node of those RDMA devices and their common PCIe path, for preferred allocation. */
  readonly locality: DeviceLocality;
}
