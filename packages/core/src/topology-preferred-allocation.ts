// Until topology's jest.config.cjs carries main's `nx-ignore-next-line` (commit 2f79240), Nx sees topology -> tools.
// eslint-disable-next-line @nx/enforce-module-boundaries -- that transitive edge is a config path, not code
import { choosePreferredAllocation, type DeviceLocality } from '@kdp/topology';
import type { PreferredAllocationContext } from './resource-declaration';

/** Options of {@link topologyPreferredAllocation}. */
export interface TopologyPreferenceOptions {
  /** NUMA distance matrix (node → node → distance) when the plugin knows it (from sysfs `nodeN/distance`). */
  readonly distances?: ReadonlyMap<number, ReadonlyMap<number, number>>;
}

/**
 * A ready-made `preferredAllocation` hook: asks @kdp/topology for the set on the fewest NUMA nodes, then the
 * closest PCIe paths, using each device's `numaNodes` and `pciePath`. Core trims the answer to the contract.
 */
export function topologyPreferredAllocation<P>(
  options: TopologyPreferenceOptions = {},
): (context: PreferredAllocationContext<P>) => string[] {
  return ({ available, mustInclude, size }) => {
    const locality = new Map<string, DeviceLocality>();
    for (const device of available) {
      locality.set(device.id, {
        numaNodes: device.numaNodes ?? [],
        ...(device.pciePath !== undefined ? { pciePath: device.pciePath } : {}),
      });
    }
    return choosePreferredAllocation({
      available: available.map((device) => device.id),
      mustInclude,
      size,
      locality,
      ...(options.distances !== undefined ? { distances: options.distances } : {}),
    });
  };
}
