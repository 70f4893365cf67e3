import { topologyPreferredAllocation, type TopologyPreferenceOptions } from '@kdp/core';
import type { PluginDevice, PreferredAllocationContext } from '@kdp/core';
import type { DeviceLocality } from '@kdp/topology';

/** What a shared ID needs for its preferred allocation: where the RDMA devices behind it sit. */
export interface SharedLocalityPayload {
  readonly locality: DeviceLocality;
}

const localityKey = (locality: DeviceLocality | undefined): string =>
  `${[...(locality?.numaNodes ?? [])].sort((a, b) => a - b).join(',')}/${(locality?.pciePath ?? []).join(',')}`;

/**
 * GetPreferredAllocation for shared resources (k8s-rdma-shared-dev-plugin style: many IDs standing for one set of
 * HCAs): `topologyPreferredAllocation` over the locality of the HCAs behind each ID (`payload.locality`, all the
 * NUMA nodes they sit on, which the advertised `numaNodes` leaves empty when they span several), so IDs whose HCAs
 * share the must-include IDs' NUMA node, or span the fewest nodes, come first. IDs with the same locality are
 * interchangeable: only `size` of each are offered to the chooser (whose cost grows with the square of the
 * candidates), so a resource with 100,000 IDs answers as fast as one with ten.
 */
export function createSharedPreferredAllocation<P extends SharedLocalityPayload>(
  options: TopologyPreferenceOptions = {},
): (context: PreferredAllocationContext<P>) => string[] {
  const choose = topologyPreferredAllocation<P>(options);
  return (context) => {
    const must = new Set(context.mustInclude);
    const offered = new Map<string, number>();
    const available: PluginDevice<P>[] = [];
    for (const device of context.available) {
      const locality = device.payload?.locality;
      const key = localityKey(locality);
      if (!must.has(device.id)) {
        const count = offered.get(key) ?? 0;
        if (count >= context.size) continue;
        offered.set(key, count + 1);
      }
      available.push({
        ...device,
        numaNodes: locality?.numaNodes ?? [],
        pciePath: locality?.pciePath ?? [],
      });
    }
    return choose({ ...context, available });
  };
}
