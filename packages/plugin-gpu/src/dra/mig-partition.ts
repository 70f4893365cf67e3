import type { MigGpuInstanceProfile } from '../nvml/nvml-partitions';

/** A MIG partition a device stands for: a GPU instance profile at one placement of its GPU. */
export interface MigPartition {
  readonly profile: MigGpuInstanceProfile;
  readonly start: number;
  readonly size: number;
}
