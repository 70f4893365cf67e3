import type { MigPartition } from '../dra/mig-partition';
import type { Gpu } from '../scan/gpu';

/** What every advertised device carries back to Allocate. */
export interface GpuPayload {
  readonly gpu: Gpu;
  /** Replica index with time-slicing, else undefined. */
  readonly replica?: number;
  /** The GPU's index (`0`, `0:1` for a MIG device; see gpuIndexes), what NVIDIA's `index` device IDs name. */
  readonly index?: string;
  /** Under DRA with dynamic MIG: the partition of `gpu` this device stands for, made at prepare. */
  readonly partition?: MigPartition;
}
