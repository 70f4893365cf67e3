import { createSysfs, readNumaTopology, type NumaTopology } from '@kdp/topology';
import { readRdmaInventory, type RdmaInventory } from './read-rdma-inventory';

/** Options of {@link createRdmaScanner}. */
export interface RdmaScannerOptions {
  /** --sysfs-root. */
  readonly sysfsRoot: string;
  /** --dev-root. */
  readonly devRoot: string;
}

/** Scans RDMA devices on demand; concurrent callers share one scan. */
export interface RdmaScanner {
  scan(): Promise<RdmaInventory>;
  /** The NUMA topology (read once, on the first scan). */
  numa(): Promise<NumaTopology>;
}

/** Creates a scanner over a sysfs root (read through the confined reader) and a dev root. */
export function createRdmaScanner(options: RdmaScannerOptions): RdmaScanner {
  const sysfs = createSysfs({ root: options.sysfsRoot });
  let numa: Promise<NumaTopology> | undefined;
  let inFlight: Promise<RdmaInventory> | undefined;
  const topology = (): Promise<NumaTopology> => (numa ??= readNumaTopology(sysfs));
  return {
    numa: topology,
    scan() {
      inFlight ??= (async () => {
        try {
          return await readRdmaInventory({ sysfs, devRoot: options.devRoot, numa: await topology() });
        } finally {
          inFlight = undefined;
        }
      })();
      return inFlight;
    },
  };
}
