// The locality tree of `referencePreferredAllocation` (the algorithm before issue 30): one leaf per device.
import { compareStrings } from './compare-strings';
import { localityRankCost } from './locality-rank';

/** A device placed in a locality tree. */
export interface TreeDevice {
  readonly id: string;
  readonly pciePath: readonly string[];
  readonly mustInclude: boolean;
}

/** A node of a locality tree: every pair of devices whose lowest common ancestor is this node costs `pairCost`. */
export interface TreeNode {
  readonly pairCost: number;
  readonly children: readonly TreeNode[];
  readonly device?: TreeDevice;
}

/** The cheapest choice of k devices below a node, for every k. */
export interface SolvedTree {
  /** best[k] = least pairwise cost of k devices from this subtree (Infinity when k is infeasible). */
  readonly best: readonly number[];
  /** The devices of one cheapest choice of k (k must be feasible). */
  pick(k: number): string[];
}

/**
 * Builds the subtree of one NUMA affinity group: the group node, then one node per PCIe bridge prefix
 * (root port: cost 2, deeper: cost 1), devices as leaves under their full path. Children are sorted so the
 * result does not depend on input order.
 */
export function buildGroupTree(devices: readonly TreeDevice[], groupPairCost: number): TreeNode {
  return buildLevel(devices, 0, groupPairCost);
}

function buildLevel(devices: readonly TreeDevice[], depth: number, pairCost: number): TreeNode {
  const leaves: TreeNode[] = [];
  const below = new Map<string, TreeDevice[]>();
  for (const device of devices) {
    const hop = device.pciePath[depth];
    if (hop === undefined) {
      leaves.push({ pairCost: 0, children: [], device });
    } else {
      const list = below.get(hop);
      if (list) list.push(device);
      else below.set(hop, [device]);
    }
  }
  leaves.sort((a, b) => compareStrings(a.device?.id ?? '', b.device?.id ?? ''));
  const childCost = depth === 0 ? localityRankCost['same-root-port'] : localityRankCost['same-switch'];
  const subtrees = [...below.keys()]
    .sort(compareStrings)
    .map((hop) => buildLevel(below.get(hop) ?? [], depth + 1, childCost));
  return { pairCost, children: [...leaves, ...subtrees] };
}

/** Solves a tree bottom-up: a knapsack over children where pairs across two children cost the node's pairCost. */
export function solveTree(node: TreeNode): SolvedTree {
  if (node.device) {
    const id = node.device.id;
    return {
      best: node.device.mustInclude ? [Infinity, 0] : [0, 0],
      pick: (k) => (k === 1 ? [id] : []),
    };
  }
  return mergeSolved(
    node.children.map((child) => solveTree(child)),
    node.pairCost,
  );
}

/** Merges solved siblings under a parent whose cross pairs cost `pairCost` each. */
export function mergeSolved(children: readonly SolvedTree[], pairCost: number): SolvedTree {
  let current: number[] = [0];
  const splits: Int32Array[] = [];
  for (const child of children) {
    const next = new Array<number>(current.length + child.best.length - 1).fill(Infinity);
    const split = new Int32Array(next.length).fill(-1);
    // Larger j first: on ties, devices from earlier (sorted) children win, so the answer is stable.
    for (let j = current.length - 1; j >= 0; j--) {
      const base = current[j] as number;
      if (base === Infinity) continue;
      for (let t = 0; t < child.best.length; t++) {
        const own = child.best[t] as number;
        if (own === Infinity) continue;
        const value = base + own + pairCost * j * t;
        if (value < (next[j + t] as number)) {
          next[j + t] = value;
          split[j + t] = t;
        }
      }
    }
    current = next;
    splits.push(split);
  }
  return {
    best: current,
    pick: (k) => {
      const ids: string[] = [];
      let remaining = k;
      for (let i = children.length - 1; i >= 0; i--) {
        const take = (splits[i] as Int32Array)[remaining] ?? -1;
        if (take < 0) throw new Error(`locality tree: ${k} devices are not feasible`);
        if (take > 0) ids.push(...(children[i] as SolvedTree).pick(take));
        remaining -= take;
      }
      return ids;
    },
  };
}
