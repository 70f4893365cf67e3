import type { DeviceLocality } from './allocation/allocation-types';
import { cleanNumaNodes } from './allocation/locality-rank';

/**
 * The shape of v1beta1 `TopologyInfo` (`{ nodes: [{ ID }] }`), assignable to `Device.topology` of @kdp/api.
 * Declared here rather than imported while importing @kdp/api trips the module-boundary lint (see README).
 */
export interface DeviceTopology {
  nodes: { ID: number }[];
}

/**
 * The v1beta1 `Device.topology` for a device on the given NUMA nodes; undefined when none is known, so that
 * the field is left out and the kubelet treats the device as having no topology (its "-1" bucket).
 */
export function topologyInfo(numaNodes: readonly number[]): DeviceTopology | undefined {
  const nodes = cleanNumaNodes({ numaNodes });
  return nodes.length === 0 ? undefined : { nodes: nodes.map((ID) => ({ ID })) };
}

/** The v1beta1 `Device.topology` of a device locality (e.g. from `pciDeviceLocality`). */
export function topologyInfoOf(locality: DeviceLocality | undefined): DeviceTopology | undefined {
  return topologyInfo(locality?.numaNodes ?? []);
}
