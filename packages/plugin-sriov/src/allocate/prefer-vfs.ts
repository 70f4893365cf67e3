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
  for (const vf of input.available) {
    const numaNodes = vf.numaNode === undefined ? [] : [vf.numaNode];
    locality.set(vf.id, { numaNodes, pciePath: [...vf.pciePath, vf.pf] });
  }
  const chosen = choosePreferredAllocation({
    available: input.available.map((vf) => vf.id),
    mustInclude: input.mustInclude,
    size: input.size,
    locality,
  });
  return input.policy === 'pack' ? chosen : spreadOverPfs(input, chosen);
}

/** The answer of `spread`: per NUMA node of `chosen`, as many VFs as it holds there, round-robin over PFs. */
function spreadOverPfs(input: PreferVfsInput, chosen: readonly string[]): string[] {
  const must = new Set(input.mustInclude);
  const byId = new Map(input.available.map((vf) => [vf.id, vf]));
  const nodeOf = (vf: VfPlacement | undefined): number => vf?.numaNode ?? -1;
  const wanted = new Map<number, number>();
  for (const id of chosen) {
    if (must.has(id)) continue;
    const node = nodeOf(byId.get(id));
    wanted.set(node, (wanted.get(node) ?? 0) + 1);
  }
  const picked = chosen.filter((id) => must.has(id));
  const usedPfs = new Set(picked.map((id) => byId.get(id)?.pf));
  for (const [node, count] of wanted) {
    const byPf = new Map<string, VfPlacement[]>();
    for (const vf of input.available) {
      if (must.has(vf.id) || nodeOf(vf) !== node) continue;
      const vfs = byPf.get(vf.pf);
      if (vfs === undefined) byPf.set(vf.pf, [vf]);
      else vfs.push(vf);
    }
    const queues = [...byPf.entries()]
      .sort(([a], [b]) => Number(usedPfs.has(a)) - Number(usedPfs.has(b)) || (a < b ? -1 : a > b ? 1 : 0))
      .map(([, vfs]) => vfs.sort((a, b) => a.index - b.index || (a.id < b.id ? -1 : 1)));
    let taken = 0;
    for (let depth = 0; taken < count && queues.some((queue) => queue.length > depth); depth++) {
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
