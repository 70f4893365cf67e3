import type { Gpu, GpuScan } from '../discovery/gpu';
import type { TrackedGpu } from '../allocate/gpu-devices';

/** A health change of one GPU, for the log. */
export interface HealthChange {
  readonly id: string;
  readonly health: 'Healthy' | 'Unhealthy';
  readonly problems: readonly string[];
}

/** Extra health input (NVML Xid events): problems per GPU ID now. */
export type ExtraProblems = (ids: readonly string[]) => ReadonlyMap<string, readonly string[]>;

/** Merges scans over time; see {@link createGpuTracker}. */
export interface GpuTracker {
  /** Folds in a new scan; returns every GPU to advertise and what changed since the last update. */
  update(scan: GpuScan): { readonly gpus: readonly TrackedGpu[]; readonly changes: readonly HealthChange[] };
}

/**
 * Remembers advertised GPUs so that health recovers instead of devices silently vanishing: a GPU seen
 * healthy once stays advertised, Unhealthy with the reason, while its device node, PCI function, driver or
 * procfs/KFD entry is gone, and Healthy again when it comes back. A GPU never seen healthy is not advertised.
 */
export function createGpuTracker(extra: ExtraProblems = () => new Map()): GpuTracker {
  const known = new Map<string, Gpu>();
  const last = new Map<string, string>();
  return {
    update(scan) {
      const now = new Map(scan.gpus.map((gpu) => [gpu.id, gpu]));
      const out: TrackedGpu[] = [];
      const changes: HealthChange[] = [];
      for (const gpu of scan.gpus) {
        if (!known.has(gpu.id) && gpu.problems.length > 0) continue;
        known.set(gpu.id, gpu);
      }
      const extraNow = extra([...known.keys()]);
      for (const [id, remembered] of known) {
        const current = now.get(id);
        const problems = [
          ...(current === undefined
            ? [`${remembered.sysfsPath} is gone, unbound from its driver, or no longer listed by the driver`]
            : current.problems),
          ...(extraNow.get(id) ?? extraNow.get(remembered.attributes.parent ?? '') ?? []),
        ];
        const health = problems.length === 0 ? 'Healthy' : 'Unhealthy';
        out.push({ gpu: current ?? remembered, health, problems });
        const key = `${health}:${problems.join(';')}`;
        if (last.get(id) !== key) {
          if (last.has(id) || health === 'Unhealthy') changes.push({ id, health, problems });
          last.set(id, key);
        }
      }
      return { gpus: out, changes };
    },
  };
}
