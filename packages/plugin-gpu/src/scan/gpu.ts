import type { ExcludedDevice } from '@kdp/core/plugin';

/** The kind of GPU, which decides the default resource name and the Allocate payload. */
export type GpuKind = 'nvidia' | 'nvidia-mig' | 'amd' | 'i915' | 'xe';

/** A bind mount handed to the container (Intel's /dev/dri/by-path links). */
export interface GpuMount {
  readonly containerPath: string;
  readonly hostPath: string;
  readonly readOnly: boolean;
}

/** One GPU (or MIG device) found by a scan. */
export interface Gpu {
  readonly kind: GpuKind;
  /** Device ID: GPU UUID (NVIDIA), `MIG-<uuid>/<gi>/<ci>` (MIG), PCI address (AMD, Intel). */
  readonly id: string;
  readonly pciAddress: string;
  /** Product name ("NVIDIA H100 80GB HBM3"), or vendor + PCI device ID where sysfs has no name. */
  readonly model: string;
  readonly numaNodes: readonly number[];
  /** PCIe bridges from the root port down, for locality. */
  readonly pciePath: readonly string[];
  /** Host paths of this GPU's own device nodes (/dev/nvidia0, /dev/dri/renderD128, …). */
  readonly deviceNodes: readonly string[];
  /** Host paths of the vendor's shared nodes present on the host (/dev/nvidiactl, /dev/kfd, …). */
  readonly sharedNodes: readonly string[];
  readonly mounts: readonly GpuMount[];
  /** Intel: host paths of the GPU's MEI nodes present (`/dev/mei0`), handed over with the monitoring resource only. */
  readonly meiNodes?: readonly string[];
  /** Free-form facts shown by `discover`. */
  readonly attributes: Readonly<Record<string, string>>;
  /** Why the GPU is unhealthy now; empty = healthy. */
  readonly problems: readonly string[];
  /** The critical NVML Xids (`problems` among them) held against the GPU now (for a MIG device, its GPU's). */
  readonly xids?: readonly number[];
  /** IDs of GPUs joined to this one by an XGMI link (AMD; for a compute partition, the partitions of other GPUs). */
  readonly xgmiPeers: readonly string[];
  /**
   * AMD: the compute (`SPX`, `CPX`, …) and memory (`NPS1`, `NPS4`, …) partition modes of the GPU, or of the GPU a
   * compute partition belongs to (partitions of one GPU share its `pciAddress`); absent where amdgpu reports none.
   */
  readonly partitionModes?: { readonly compute?: string; readonly memory?: string };
  /**
   * AMD with partition modes: the compute dies (XCCs, KFD's `num_xcc`) of this device — of the partition, on a
   * partitioned GPU; absent where KFD reports none. Under DRA they are the GPU's compute counters.
   */
  readonly xccs?: number;
  /** NVIDIA MIG device (kind `nvidia-mig`): where it sits and, through NVML, its profile. */
  readonly mig?: MigPlacement;
}

/** Where an NVIDIA MIG device sits, and what NVML says of it. */
export interface MigPlacement {
  /** GPU instance and compute instance IDs. */
  readonly gi: number;
  readonly ci: number;
  /** The parent GPU as a whole, as `nvidia.migStrategy: none` advertises it instead of its MIG devices. */
  readonly parent: Gpu;
  /** The parent's partition layout as procfs lists it (`gi1/ci0,gi2/ci0`); a new one retires the old MIG devices. */
  readonly layout: string;
  /** NVIDIA's profile name (`1g.10gb`, `1c.3g.40gb`), read through NVML; absent without it. */
  readonly profile?: string;
  /** The MIG device's index under its GPU through NVML (NVIDIA's `<gpu>:<index>`). */
  readonly index?: number;
}

/** A PCI function the scan took for a GPU (advertised or excluded), as the change probe re-reads it. */
export interface GpuCandidate {
  readonly address: string;
  /** PCI vendor ID (`0x10de`, `0x1002`, `0x8086`). */
  readonly vendor: string;
  /** Whether it is an SR-IOV physical function (its `sriov_numvfs` decides whether it is advertised). */
  readonly sriov: boolean;
}

/** What one scan of the machine found. */
export interface GpuScan {
  readonly gpus: readonly Gpu[];
  readonly excluded: readonly ExcludedDevice[];
  readonly warnings: readonly string[];
  /** Every GPU candidate, advertised or not. */
  readonly candidates: readonly GpuCandidate[];
  /** procfs directories whose listing the scan used (MIG instances under /proc/driver/nvidia/capabilities). */
  readonly procfsDirs: readonly string[];
  /**
   * NVIDIA GPU UUID → its MIG layout as procfs lists it (`''` without MIG devices), whatever `migStrategy`
   * advertises; set by the MIG strategy, read to retire the MIG devices of a re-partitioned GPU.
   */
  readonly migLayouts?: ReadonlyMap<string, string>;
}
