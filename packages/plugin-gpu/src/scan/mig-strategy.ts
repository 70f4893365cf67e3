import type { Logger, PluginDevice } from '@kdp/core';
import type { ExcludedDevice } from '@kdp/core/plugin';
import type { GpuConfig } from '../config';
import type { NvmlMigGpu, NvmlMigLoad } from '../nvml/nvml-mig';
import type { Gpu, GpuScan } from './gpu';

/** NVIDIA's `migStrategy`. */
export type MigStrategy = GpuConfig['nvidia']['migStrategy'];

/** Loads NVML for MIG queries; called once, when the first MIG device is seen in single or mixed. */
export type NvmlMigFactory = () => NvmlMigLoad;

/** Options of {@link createMigStrategy}. */
export interface MigStrategyOptions {
  readonly logger: Logger;
  readonly nvml: NvmlMigFactory;
}

/** Applies `nvidia.migStrategy` to scans, with what NVML says of each MIG layout (cached per layout). */
export interface MigStrategyApplier {
  /**
   * The scan as `strategy` advertises it: `none` puts each MIG-enabled GPU back whole; `single` and `mixed` keep its
   * MIG devices, with NVML's MIG UUIDs as IDs and their profile names when NVML answers. `single` excludes every MIG
   * device when the node has more than one profile; `mixed` excludes a GPU whose profiles NVML cannot tell.
   */
  apply(scan: GpuScan, strategy: MigStrategy): GpuScan;
}

/** What a MIG-enabled GPU's devices became under the strategy. */
interface Group {
  readonly parent: Gpu;
  readonly layout: string;
  devices: Gpu[];
  /** Why NVML could not tell the profiles, to follow "NVML, which": `is not available (…)`, `failed (…)`, `does not list …`. */
  unknown?: string;
}

const pciPath = (gpu: Gpu): string => `/sys/bus/pci/devices/${gpu.pciAddress}`;

/**
 * Creates the applier. NVML is loaded at most once per process and asked only when a GPU's procfs MIG layout is
 * new (results are kept per layout while it lasts), so a scan of an unchanged node makes no NVML call.
 */
export function createMigStrategy(options: MigStrategyOptions): MigStrategyApplier {
  let load: NvmlMigLoad | undefined;
  let cache = new Map<string, NvmlMigGpu | string>();
  const nvml = (): NvmlMigLoad => {
    if (load === undefined) {
      load = options.nvml();
      if (load.ok) options.logger.info({}, 'NVML: MIG profiles and UUIDs are read through NVML');
      else
        options.logger.info(
          { reason: load.reason },
          'NVML not available: MIG devices keep their procfs IDs; migStrategy mixed cannot name their profiles',
        );
    }
    return load;
  };
  /** NVML's view of a parent GPU for its current layout, or why there is none. */
  const read = (group: Group, next: Map<string, NvmlMigGpu | string>): NvmlMigGpu | string => {
    const key = `${group.parent.id} ${group.layout}`;
    let result = cache.get(key);
    if (result === undefined) {
      const loaded = nvml();
      if (!loaded.ok) result = `is not available (${loaded.reason})`;
      else {
        try {
          result = loaded.mig.read(group.parent.id);
        } catch (error) {
          result = `failed (${error instanceof Error ? error.message : String(error)})`;
        }
      }
    }
    next.set(key, result);
    return result;
  };

  return {
    apply(scan, strategy) {
      const migLayouts = layoutsOf(scan.gpus);
      const groups = new Map<string, Group>();
      for (const gpu of scan.gpus) {
        if (gpu.mig === undefined) continue;
        const group = groups.get(gpu.mig.parent.id);
        if (group === undefined)
          groups.set(gpu.mig.parent.id, { parent: gpu.mig.parent, layout: gpu.mig.layout, devices: [gpu] });
        else group.devices.push(gpu);
      }
      if (groups.size === 0) {
        cache = new Map();
        return { ...scan, migLayouts };
      }
      const excluded: ExcludedDevice[] = [];
      const warnings: string[] = [];
      if (strategy !== 'none') {
        const next = new Map<string, NvmlMigGpu | string>();
        for (const group of groups.values()) enrich(group, read(group, next));
        cache = next;
        for (const group of groups.values()) {
          if (group.unknown !== undefined && load?.ok === true)
            warnings.push(
              `${group.parent.pciAddress}: MIG devices not read through NVML, which ${group.unknown}`,
            );
        }
        const profiles = [
          ...new Set([...groups.values()].flatMap((g) => g.devices.flatMap((d) => d.mig?.profile ?? []))),
        ].sort();
        for (const group of groups.values()) {
          const refused =
            strategy === 'mixed' && group.unknown !== undefined
              ? `MIG enabled: migStrategy mixed takes the MIG profiles from NVML, which ${group.unknown}; not advertised`
              : strategy === 'single' && profiles.length > 1
                ? `MIG enabled: migStrategy single takes one MIG profile per node, found ${profiles.join(', ')} (use mixed); not advertised`
                : undefined;
          excluded.push({
            path: pciPath(group.parent),
            reason:
              refused ??
              `MIG enabled: advertised as ${group.devices.length} MIG device(s) instead of the whole GPU`,
          });
          if (refused !== undefined) group.devices = [];
        }
        if (strategy === 'single' && profiles.length > 1)
          warnings.push(
            `migStrategy single: the node has MIG devices of ${profiles.length} profiles (${profiles.join(', ')}); none is advertised (NVIDIA's plugin refuses such a node; use mixed)`,
          );
      } else {
        cache = new Map();
        for (const group of groups.values()) group.devices = [group.parent];
      }
      const gpus: Gpu[] = [];
      const emitted = new Set<string>();
      for (const gpu of scan.gpus) {
        if (gpu.mig === undefined) gpus.push(gpu);
        else if (!emitted.has(gpu.mig.parent.id)) {
          emitted.add(gpu.mig.parent.id);
          gpus.push(...(groups.get(gpu.mig.parent.id)?.devices ?? []));
        }
      }
      return {
        ...scan,
        gpus,
        // In PCI address order, as the scan lists the others.
        excluded: [...scan.excluded, ...excluded].sort((a, b) =>
          a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
        ),
        warnings: [...scan.warnings, ...warnings],
        migLayouts,
      };
    },
  };
}

/** Adds NVML's UUIDs, profiles and indexes to a group's MIG devices (in NVML's index order), or says why not. */
function enrich(group: Group, nvml: NvmlMigGpu | string): void {
  if (typeof nvml === 'string') {
    group.unknown = nvml;
    return;
  }
  const byPlacement = new Map(nvml.devices.map((d) => [`${d.gpuInstanceId}/${d.computeInstanceId}`, d]));
  const missing: string[] = [];
  group.devices = group.devices.map((gpu) => {
    const mig = gpu.mig;
    const found = mig && byPlacement.get(`${mig.gi}/${mig.ci}`);
    if (mig === undefined || found === undefined) {
      missing.push(gpu.attributes.mig ?? gpu.id);
      return gpu;
    }
    return {
      ...gpu,
      id: found.uuid,
      attributes: { ...gpu.attributes, migProfile: found.profile, migIndex: String(found.index) },
      mig: { ...mig, profile: found.profile, index: found.index },
    };
  });
  group.devices.sort((a, b) => (a.mig?.index ?? Infinity) - (b.mig?.index ?? Infinity));
  if (missing.length > 0) group.unknown = `does not list MIG ${missing.join(', ')}`;
}

/** Each NVIDIA GPU's procfs MIG layout by UUID (`''` for a GPU without MIG devices). */
function layoutsOf(gpus: readonly Gpu[]): Map<string, string> {
  const layouts = new Map<string, string>();
  for (const gpu of gpus) {
    if (gpu.mig !== undefined) layouts.set(gpu.mig.parent.id, gpu.mig.layout);
    else if (gpu.kind === 'nvidia' && !layouts.has(gpu.id)) layouts.set(gpu.id, '');
  }
  return layouts;
}

/**
 * The resource set's `retired`: a remembered MIG device is gone for good once its GPU reports another partition
 * layout (instances destroyed or created, MIG turned off). A MIG device whose GPU is missing from the scan, or
 * whose GPU kept its layout, stays remembered (Unhealthy).
 */
export function retiredMigDevices(scan: GpuScan): (device: PluginDevice<unknown>) => boolean {
  const layouts = scan.migLayouts ?? layoutsOf(scan.gpus);
  return (device) => {
    const mig = (device.payload as { readonly gpu?: Gpu } | undefined)?.gpu?.mig;
    if (mig === undefined) return false;
    const now = layouts.get(mig.parent.id);
    return now !== undefined && now !== mig.layout;
  };
}
