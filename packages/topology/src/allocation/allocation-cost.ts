import type { DeviceLocality } from './allocation-types';
import { cleanNumaNodes, localityRankCost, rankLocality } from './locality-rank';

/** The policy's cost of a device set, compared field by field in this order; lower is better. */
export interface AllocationCost {
  /** Devices with unknown NUMA affinity (taken last). */
  readonly unknownDevices: number;
  /** Distinct NUMA nodes spanned by the devices with known affinity. */
  readonly numaNodes: number;
  /** Sum of NUMA distances over each pair of spanned nodes (10 local / 20 remote where not given). */
  readonly numaDistance: number;
  /** Sum of `localityRankCost` over each pair of devices: the closeness of their PCIe paths. */
  readonly pcie: number;
}

/** The NUMA distance between two nodes: from the matrix when it has a finite entry, else 10 local / 20 remote. */
export function numaDistance(
  distances: ReadonlyMap<number, ReadonlyMap<number, number>> | undefined,
  from: number,
  to: number,
): number {
  const given = distances?.get(from)?.get(to);
  if (typeof given === 'number' && Number.isFinite(given) && given >= 0) return given;
  return from === to ? 10 : 20;
}

/** Sum of NUMA distances over each unordered pair of the given (sorted, distinct) nodes. */
export function numaDistanceSum(
  nodes: readonly number[],
  distances: ReadonlyMap<number, ReadonlyMap<number, number>> | undefined,
): number {
  let sum = 0;
  for (let i = 0; i < nodes.length; i++) {
    for (let j = i + 1; j < nodes.length; j++)
      sum += numaDistance(distances, nodes[i] as number, nodes[j] as number);
  }
  return sum;
}

/** Computes the policy's cost of a device set directly from its definition (quadratic; for checks and tools). */
export function allocationCost(
  ids: readonly string[],
  locality: ReadonlyMap<string, DeviceLocality>,
  distances?: ReadonlyMap<number, ReadonlyMap<number, number>>,
): AllocationCost {
  let unknownDevices = 0;
  const spanned = new Set<number>();
  for (const id of ids) {
    const nodes = cleanNumaNodes(locality.get(id));
    if (nodes.length === 0) unknownDevices++;
    for (const node of nodes) spanned.add(node);
  }
  let pcie = 0;
  for (let i = 0; i < ids.length; i++) {
    for (let j = i + 1; j < ids.length; j++) {
      pcie += localityRankCost[rankLocality(locality.get(ids[i] as string), locality.get(ids[j] as string))];
    }
  }
  const nodes = [...spanned].sort((a, b) => a - b);
  return { unknownDevices, numaNodes: nodes.length, numaDistance: numaDistanceSum(nodes, distances), pcie };
}

/** Orders two costs: negative when `a` is better, 0 when equal, positive when `b` is better. */
export function compareAllocationCost(a: AllocationCost, b: AllocationCost): number {
  return (
    a.unknownDevices - b.unknownDevices ||
    a.numaNodes - b.numaNodes ||
    a.numaDistance - b.numaDistance ||
    a.pcie - b.pcie
  );
}
