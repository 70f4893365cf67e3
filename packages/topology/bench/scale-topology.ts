// A synthetic machine of any size for the allocation benchmark: NUMA nodes with root ports, half of them holding
// PF-like groups of up to 64 devices directly, half a switch with downstream ports; a few devices sit on a root
// port itself and a few have no known locality.
import type { DeviceLocality, PreferredAllocationInput } from '../src/allocation/allocation-types';

/** A scale scenario: its candidates (IDs, sorted) and their locality and NUMA distances. */
export interface ScaleTopology {
  readonly ids: readonly string[];
  readonly locality: ReadonlyMap<string, DeviceLocality>;
  readonly distances: ReadonlyMap<number, ReadonlyMap<number, number>>;
}

/** `count` devices over `numaNodes` nodes, 8 root ports each, groups of up to 64 devices. */
export function scaleTopology(count: number, numaNodes: number): ScaleTopology {
  const locality = new Map<string, DeviceLocality>();
  const ids: string[] = [];
  const perNode = Math.ceil(count / numaNodes);
  for (let i = 0; i < count; i++) {
    const id = `dev-${i.toString().padStart(5, '0')}`;
    ids.push(id);
    if (i % 97 === 96) continue; // unknown locality
    const node = Math.floor(i / perNode);
    const inNode = i % perNode;
    const group = Math.floor(inNode / 64);
    const port = `${node}-${group % 8}`;
    let pciePath: string[];
    if (inNode % 50 === 49) pciePath = [`root-${port}`];
    else if (group % 2 === 0) pciePath = [`root-${port}`, `pf-${node}-${group}`];
    else pciePath = [`root-${port}`, `up-${port}`, `down-${node}-${group}`];
    locality.set(id, { numaNodes: [node], pciePath });
  }
  const distances = new Map<number, Map<number, number>>();
  for (let a = 0; a < numaNodes; a++) {
    const row = new Map<number, number>();
    for (let b = 0; b < numaNodes; b++)
      row.set(b, a === b ? 10 : Math.floor(a / 2) === Math.floor(b / 2) ? 21 : 31);
    distances.set(a, row);
  }
  return { ids, locality, distances };
}

/**
 * The i-th question of a scale run: sizes from 1 to 7/8 of the candidates in turn, with no, one or two
 * must-include IDs (two on different NUMA nodes, which forces a second node).
 */
export function scaleQuestion(topology: ScaleTopology, i: number): PreferredAllocationInput {
  const n = topology.ids.length;
  const sizes = [
    1,
    2,
    4,
    8,
    32,
    Math.floor(n / 8),
    Math.floor(n / 4),
    Math.floor(n / 2),
    Math.floor((7 * n) / 8),
  ];
  const size = sizes[i % sizes.length] as number;
  const pick = (k: number): string => topology.ids[k % n] as string;
  const variant = Math.floor(i / sizes.length) % 3;
  const mustInclude = variant === 0 ? [] : variant === 1 ? [pick(i * 7919)] : [pick(3), pick(n - 3)];
  return {
    available: topology.ids,
    mustInclude,
    size,
    locality: topology.locality,
    distances: topology.distances,
  };
}
