/** What preferred allocation needs to know of one VF. */
export interface VfPlacement {
  readonly id: string;
  /** NUMA node; undefined when unknown. */
  readonly numaNode?: number;
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
  /** `pack`: fill as few PFs as possible; `spread`: round-robin over PFs (for bandwidth and PF failure). */
  readonly policy: 'pack' | 'spread';
}

/**
 * Picks `size` IDs: the must-include ones, then VFs on as few NUMA nodes as possible (the nodes of the
 * must-include VFs first, then a node where the rest fits: the tightest fit to pack, the roomiest to spread;
 * else the nodes with the most free VFs), and within that set packs onto or spreads over PFs as configured.
 */
export function preferVfs(input: PreferVfsInput): string[] {
  const { available, size } = input;
  const byId = new Map(available.map((vf) => [vf.id, vf]));
  const chosen = input.mustInclude.filter((id) => byId.has(id)).slice(0, Math.max(size, 0));
  const taken = new Set(chosen);
  let rest = available.filter((vf) => !taken.has(vf.id));
  const wanted = size - chosen.length;
  if (wanted <= 0) return chosen;

  // NUMA: order nodes by (holds a must-include VF, free VFs), and take nodes until the request fits.
  const mustNodes = new Set(chosen.map((id) => byId.get(id)?.numaNode ?? -1));
  const freeByNode = new Map<number, number>();
  for (const vf of rest) freeByNode.set(vf.numaNode ?? -1, (freeByNode.get(vf.numaNode ?? -1) ?? 0) + 1);
  const fitting = [...freeByNode.entries()].filter(([, free]) => free >= wanted).map(([node]) => node);
  const nodeOrder = [...freeByNode.keys()].sort((a, b) => {
    const must = Number(mustNodes.has(b)) - Number(mustNodes.has(a));
    if (must !== 0) return must;
    const fits = Number(fitting.includes(b)) - Number(fitting.includes(a));
    if (fits !== 0) return fits;
    // Among nodes that fit: pack takes the tightest fit (keeps big free blocks), spread the roomiest.
    const roomier = (freeByNode.get(b) ?? 0) - (freeByNode.get(a) ?? 0);
    const free = input.policy === 'pack' && fitting.includes(a) ? -roomier : roomier;
    return free !== 0 ? free : a - b;
  });
  const nodeRank = new Map(nodeOrder.map((node, i) => [node, i]));
  rest = [...rest].sort(
    (a, b) => (nodeRank.get(a.numaNode ?? -1) ?? 0) - (nodeRank.get(b.numaNode ?? -1) ?? 0),
  );

  // Within the node order, group by PF.
  const groups: { node: number; pf: string; vfs: VfPlacement[] }[] = [];
  for (const vf of rest) {
    const node = vf.numaNode ?? -1;
    let group = groups.find((g) => g.node === node && g.pf === vf.pf);
    if (group === undefined) groups.push((group = { node, pf: vf.pf, vfs: [] }));
    group.vfs.push(vf);
  }
  for (const group of groups) group.vfs.sort((a, b) => a.index - b.index || (a.id < b.id ? -1 : 1));
  const usedPfs = new Set(chosen.map((id) => byId.get(id)?.pf));
  const picked: string[] = [];
  for (const node of nodeOrder) {
    const nodeGroups = groups.filter((g) => g.node === node);
    if (input.policy === 'pack') {
      nodeGroups.sort(
        (a, b) =>
          Number(usedPfs.has(b.pf)) - Number(usedPfs.has(a.pf)) ||
          b.vfs.length - a.vfs.length ||
          (a.pf < b.pf ? -1 : 1),
      );
      for (const group of nodeGroups) for (const vf of group.vfs) picked.push(vf.id);
    } else {
      nodeGroups.sort(
        (a, b) => Number(usedPfs.has(a.pf)) - Number(usedPfs.has(b.pf)) || (a.pf < b.pf ? -1 : 1),
      );
      const longest = Math.max(0, ...nodeGroups.map((g) => g.vfs.length));
      for (let i = 0; i < longest; i++) {
        for (const group of nodeGroups) {
          const vf = group.vfs[i];
          if (vf !== undefined) picked.push(vf.id);
        }
      }
    }
  }
  return [...chosen, ...picked.slice(0, wanted)];
}
