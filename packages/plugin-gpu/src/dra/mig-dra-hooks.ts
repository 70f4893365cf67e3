import type { ContainerAllocation, PluginDevice, ResourceDraHooks } from '@kdp/core';
import type { Host } from '@kdp/topology';
import { allocateGpus } from '../allocate/allocate-gpus';
import type { GpuConfig } from '../config';
import type { MigGpuProfiles, NvmlPartitions } from '../nvml/nvml-partitions';
import type { GpuPayload } from '../resources/gpu-payload';
import { parseMigMinors } from '../scan/parse-mig-minors';
import { migPartitionPool } from './mig-partitions';

/** What {@link migDraHooks} needs. */
export interface MigDraHooksOptions {
  /** NVML's partition calls, loaded at first use; undefined where NVML is not available (GPUs published whole). */
  readonly nvml: () => NvmlPartitions | undefined;
  /** procfs, for the MIG capability minors of a new instance. */
  readonly host: Pick<Host, 'procfs'>;
  readonly config: GpuConfig;
  /** Told of a GPU whose profiles NVML would not report (published whole, without partitions). */
  readonly onProblem: (uuid: string, problem: string) => void;
  /** Told when an instance was created or destroyed, so that the pool is published anew (a scan). */
  readonly onChanged: () => void;
}

/** The capability device node of `gpu<minor>/gi<gi>[/ci<ci>]` from the driver's mig-minors table. */
function capNode(table: ReadonlyMap<string, number>, path: string): string {
  const minor = table.get(`${path}/access`);
  if (minor === undefined) throw new Error(`/proc/driver/nvidia-caps/mig-minors has no ${path}`);
  return `/dev/nvidia-caps/nvidia-cap${minor}`;
}

/**
 * The DRA hooks of an NVIDIA GPU resource with dynamic MIG partitioning: its pool publishes each MIG-mode GPU's
 * partitions (migPartitionPool); prepare creates the GPU and compute instance of a partition through NVML (reusing
 * one of that profile already at that placement) and hands over what a static MIG device of it would get — the
 * GPU's node, the instance's /dev/nvidia-caps nodes, the shared control nodes — with `KDP_MIG_UUID` naming it;
 * unprepare destroys the instance. Either asks for a scan, so that the pool's counters follow the instances.
 */
export function migDraHooks(options: MigDraHooksOptions): ResourceDraHooks<GpuPayload> {
  const { host, config } = options;
  const nvml = (): NvmlPartitions => {
    const loaded = options.nvml();
    if (loaded === undefined) throw new Error('NVML is not available for dynamic MIG partitions');
    return loaded;
  };
  const profilesOf = (uuid: string): MigGpuProfiles | undefined => {
    try {
      return nvml().profiles(uuid);
    } catch (error) {
      options.onProblem(uuid, error instanceof Error ? error.message : String(error));
      return undefined;
    }
  };
  const prepareOne = async (device: PluginDevice<GpuPayload>): Promise<ContainerAllocation | undefined> => {
    const { gpu, partition } = device.payload ?? {};
    if (gpu === undefined || partition === undefined) return undefined;
    const made = nvml().create(gpu.id, partition.profile.id, partition.start);
    if (made.created) options.onChanged();
    const text = await host.procfs.read('driver/nvidia-caps/mig-minors');
    if (text === undefined) throw new Error('/proc/driver/nvidia-caps/mig-minors is not readable');
    const table = parseMigMinors(text);
    const minor = gpu.attributes['minor'] ?? '';
    const gi = `gpu${minor}/gi${made.gpuInstanceId}`;
    const mig = {
      ...gpu,
      kind: 'nvidia-mig' as const,
      id: made.uuid,
      deviceNodes: [
        ...gpu.deviceNodes,
        capNode(table, gi),
        capNode(table, `${gi}/ci${made.computeInstanceId}`),
      ],
    };
    const allocation = allocateGpus([{ ...device, payload: { gpu: mig } }], config);
    return { ...allocation, envs: { KDP_MIG_UUID: made.uuid } };
  };
  return {
    pool: (devices) => (options.nvml() === undefined ? { devices } : migPartitionPool(devices, profilesOf)),
    prepare: async ({ devices }) => {
      const out: (ContainerAllocation | undefined)[] = [];
      for (const device of devices) out.push(await prepareOne(device));
      return out;
    },
    unprepare: async ({ devices }) => {
      for (const device of devices) {
        const { gpu, partition } = device.payload ?? {};
        if (
          gpu !== undefined &&
          partition !== undefined &&
          nvml().destroy(gpu.id, partition.profile.id, partition.start)
        )
          options.onChanged();
      }
    },
  };
}
