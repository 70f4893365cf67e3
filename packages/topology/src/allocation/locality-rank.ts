import type { DeviceLocality } from './allocation-types';

/** How close two devices are, best first: behind one PCIe switch, one root port, one NUMA node, or none of these. */
export type LocalityRank =
  'same-switch' | 'same-root-port' | 'same-numa-node' | 'other-numa-node' | 'unknown';

/** The cost of each rank in the allocation policy's pairwise sum (lower is closer). */
export const localityRankCost: Readonly<Record<LocalityRank, number>> = {
  'same-switch': 1,
  'same-root-port': 2,
  'same-numa-node': 3,
  'other-numa-node': 4,
  unknown: 4,
};

/** The NUMA affinity of a locality as a canonical key: sorted, de-duplicated node numbers; '' when unknown. */
export function numaKey(locality: DeviceLocality | undefined): string {
  return cleanNumaNodes(locality).join(',');
}

/** The valid NUMA node numbers of a locality, sorted and de-duplicated (negative or non-integer entries dropped). */
export function cleanNumaNodes(locality: DeviceLocality | undefined): readonly number[] {
  if (!locality || !Array.isArray(locality.numaNodes)) return [];
  // The common case, one valid node, as it is: no copy per device and call.
  if (
    locality.numaNodes.length === 1 &&
    Number.isSafeInteger(locality.numaNodes[0]) &&
    locality.numaNodes[0] >= 0
  ) {
    return locality.numaNodes;
  }
  const nodes = locality.numaNodes.filter((n) => Number.isSafeInteger(n) && n >= 0);
  return [...new Set(nodes)].sort((a, b) => a - b);
}

/** The valid bridge addresses of a locality's PCIe path ([] when unknown). */
export function cleanPciePath(locality: DeviceLocality | undefined): readonly string[] {
  const path = locality?.pciePath;
  if (!Array.isArray(path)) return [];
  const valid = path.findIndex((hop) => typeof hop !== 'string' || hop === '');
  return valid < 0 ? path : path.slice(0, valid);
}

/**
 * Ranks the locality of two devices. PCIe paths count only between devices with the same NUMA affinity
 * (compared as a whole set): two or more shared bridges = same switch, exactly the root port = same root port.
 */
export function rankLocality(a: DeviceLocality | undefined, b: DeviceLocality | undefined): LocalityRank {
  const keyA = numaKey(a);
  const keyB = numaKey(b);
  if (keyA !== keyB) return keyA !== '' && keyB !== '' ? 'other-numa-node' : 'unknown';
  const pathA = cleanPciePath(a);
  const pathB = cleanPciePath(b);
  let shared = 0;
  while (shared < pathA.length && shared < pathB.length && pathA[shared] === pathB[shared]) shared++;
  if (shared >= 2) return 'same-switch';
  if (shared === 1) return 'same-root-port';
  return keyA === '' ? 'unknown' : 'same-numa-node';
}
