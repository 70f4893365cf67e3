import { choosePreferredAllocation, type DeviceLocality } from '@kdp/topology';

/** What preferred allocation needs to know of one VF. */
export interface VfPlacement {
  readonly id: string;
  /** NUMA node; undefined when unknown (or the pool sets excludeTopology). */
  readonly numaNode?: number;
  /** Bridges from the root port down to the function's parent; [] when unknown. */
  readonly pciePath: readonly string[];
  /** The PF it belongs to (its own address for a PF). */
  readonly pf: string;
  /** VF index, for a stable order within a PF. */
  readonly index: number;
}

/** Inputs of {@link preferVfs}. */
export interface PreferVfsInput {
  readonly available: readonly VfPlacement[];
  readonly mustInclude: readonly string[];
  readonly size: number;
  /** `pack`: as few PFs as possible; `spread`: round-robin over PFs (for bandwidth and PF failure). */
  readonly policy: 'pack' | 'spread';
}

/**
 * Picks `size` IDs (and every must-include one) with @kdp/topology's `choosePreferredAllocation`: the fewest
 * NUMA nodes, then the closest PCIe paths, each VF's PF taken as the last hop of its path, so that VFs of one
 * PF are closer than VFs of two PFs behind one port (`pack`). `spread` keeps the NUMA nodes it chose and how
 * many VFs it took on each, but takes them round-robin over each node's PFs, PFs without a must-include VF
 * first.
 */
export function preferVfs(input: PreferVfsInput): string[] {
  const locality = new Map<string, DeviceLocality>();
  const ids: string[] = [];
  // One NUMA node list per node and one path per PF, shared by its VFs: no two arrays per VF and call.
  const numaLists = new Map<number, readonly number[]>();
  const pfPaths = new Map<
    string,
    { readonly parents: readonly string[]; readonly path: readonly string[] }
  >();
  for (const vf of input.available) {
    let numaNodes: readonly number[] = [];
    if (vf.numaNode !== undefined) {
      numaNodes = numaLists.get(vf.numaNode) ?? [vf.numaNode];
      numaLists.set(vf.numaNode, numaNodes);
    }
    let shared = pfPaths.get(vf.pf);
    if (shared === undefined || !sameHops(shared.parents, vf.pciePath)) {
      shared = { parents: vf.pciePath, path: [...vf.pciePath, vf.pf] };
      pfPaths.set(vf.pf, shared);
    }
    locality.set(vf.id, { numaNodes, pciePath: shared.path });
    ids.push(vf.id);
  }
  const chosen = choosePreferredAllocation({
    available: ids,
    mustInclude: input.mustInclude,
    size: input.size,
    locality,
  });
  return input.policy === 'pack' ? chosen : spreadOverPfs(input, chosen);
}

/** The answer of `spread`: per NUMA node of `chosen`, as many VFs as it holds there, round-robin over PFs. */
function spreadOverPfs(input: PreferVfsInput, chosen: readonly string[]): string[] {
  const must = new Set(input.mustInclude);
  const nodeOf = (vf: VfPlacement): number => vf.numaNode ?? -1;
  const picked = chosen.filter((id) => must.has(id));
  const usedPfs = new Set<string>();
  const chosenIds = new Set(chosen);
  const chosenNode = new Map<string, number>();
  // One pass: the nodes of the chosen VFs, the PFs of must-include VFs (all chosen), every other VF by node and PF.
  const byNode = new Map<number, Map<string, VfPlacement[]>>();
  for (const vf of input.available) {
    if (must.has(vf.id)) {
      usedPfs.add(vf.pf);
      continue;
    }
    const node = nodeOf(vf);
    if (chosenIds.has(vf.id)) chosenNode.set(vf.id, node);
    let byPf = byNode.get(node);
    if (byPf === undefined) byNode.set(node, (byPf = new Map()));
    const vfs = byPf.get(vf.pf);
    if (vfs === undefined) byPf.set(vf.pf, [vf]);
    else vfs.push(vf);
  }
  const wanted = new Map<number, number>();
  for (const id of chosen) {
    const node = chosenNode.get(id);
    if (node !== undefined) wanted.set(node, (wanted.get(node) ?? 0) + 1);
  }
  for (const [node, count] of wanted) {
    const byPf = byNode.get(node) as Map<string, VfPlacement[]>;
    const queues = [...byPf.entries()]
      .sort(([a], [b]) => Number(usedPfs.has(a)) - Number(usedPfs.has(b)) || (a < b ? -1 : a > b ? 1 : 0))
      .map(([, vfs]) => vfs.sort((a, b) => a.index - b.index || (a.id < b.id ? -1 : 1)));
    const deepest = Math.max(...queues.map((queue) => queue.length));
    let taken = 0;
    for (let depth = 0; taken < count && depth < deepest; depth++) {
      for (const queue of queues) {
        const vf = queue[depth];
        if (vf === undefined || taken === count) continue;
        picked.push(vf.id);
        taken++;
      }
    }
  }
  return picked;
}

function sameHops(a: readonly string[], b: readonly string[]): boolean {
  return a === b || (a.length === b.length && a.every((hop, i) => hop === b[i]));
}
