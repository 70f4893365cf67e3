import type { DeviceLocality, PreferredAllocationInput } from './allocation-types';
import { numaDistanceSum } from './allocation-cost';
import { cleanNumaNodes, cleanPciePath, localityRankCost } from './locality-rank';
import { combinations } from './node-set-combinations';
import { stringsOf } from './strings-of';
import { compareStrings } from './compare-strings';
import { buildGroupTree, mergeSolved, solveTree } from './reference-locality-tree.fixture';
import type { SolvedTree, TreeDevice } from './reference-locality-tree.fixture';

/** Above this many candidate NUMA node sets of one size, the search keeps the best found so far. */
const maxNodeSetsPerSize = 4096;

interface NumaGroup {
  readonly nodes: readonly number[];
  readonly size: number;
  readonly hasMust: boolean;
  readonly solved: SolvedTree;
}

/**
 * The algorithm `choosePreferredAllocation` had until issue 30, kept as the reference its property test compares
 * with: a knapsack over every device of the locality tree (quadratic in the candidates), re-merged for every
 * candidate NUMA node set. Deterministic: returns exactly min(size, |available ∪ mustInclude|) IDs (never fewer than the mustInclude
 * IDs), every mustInclude ID, only available or mustInclude IDs, spanning the fewest NUMA nodes, then the
 * closest PCIe paths. The cost order is `compareAllocationCost`: devices of unknown locality, NUMA nodes
 * spanned, NUMA distance between them, pairwise PCIe closeness. The answer is sorted by ID.
 */
export function referencePreferredAllocation(input: PreferredAllocationInput): string[] {
  const must = new Set(stringsOf(input.mustInclude));
  const universe = [...new Set([...stringsOf(input.available), ...must])].sort(compareStrings);
  const wanted = Number.isFinite(input.size) ? Math.max(0, Math.floor(input.size)) : 0;
  const total = Math.max(must.size, Math.min(wanted, universe.length));
  if (total === universe.length) return universe;
  if (total === must.size) return [...must].sort(compareStrings);

  const byKey = new Map<string, { nodes: readonly number[]; devices: TreeDevice[] }>();
  const unknown: TreeDevice[] = [];
  let knownCount = 0;
  let unknownMust = 0;
  for (const id of universe) {
    const locality: DeviceLocality | undefined = input.locality.get(id);
    const device: TreeDevice = { id, pciePath: cleanPciePath(locality), mustInclude: must.has(id) };
    const nodes = cleanNumaNodes(locality);
    if (nodes.length === 0) {
      unknown.push(device);
      if (device.mustInclude) unknownMust++;
      continue;
    }
    knownCount++;
    const key = nodes.join(',');
    const group = byKey.get(key);
    if (group) group.devices.push(device);
    else byKey.set(key, { nodes, devices: [device] });
  }

  const unknownTaken = Math.max(unknownMust, total - knownCount);
  const knownTaken = total - unknownTaken;
  const picked =
    unknownTaken > 0 ? solveTree(buildGroupTree(unknown, localityRankCost.unknown)).pick(unknownTaken) : [];
  if (knownTaken > 0) {
    const groups: NumaGroup[] = [...byKey.keys()].sort(compareStrings).map((key) => {
      const group = byKey.get(key) as { nodes: readonly number[]; devices: TreeDevice[] };
      return {
        nodes: group.nodes,
        size: group.devices.length,
        hasMust: group.devices.some((d) => d.mustInclude),
        solved: solveTree(buildGroupTree(group.devices, localityRankCost['same-numa-node'])),
      };
    });
    picked.push(...chooseKnown(groups, knownTaken, input.distances));
  }
  return picked.sort(compareStrings);
}

/** Finds the smallest NUMA node set that can hold `count` devices, then the closest one, then the best devices in it. */
function chooseKnown(
  groups: readonly NumaGroup[],
  count: number,
  distances: PreferredAllocationInput['distances'],
): string[] {
  const mustNodes = new Set<number>();
  const allNodes = new Set<number>();
  for (const group of groups) {
    for (const node of group.nodes) {
      allNodes.add(node);
      if (group.hasMust) mustNodes.add(node);
    }
  }
  const optional = [...allNodes].filter((n) => !mustNodes.has(n)).sort((a, b) => a - b);
  for (let extra = 0; extra <= optional.length; extra++) {
    let best: { distance: number; pcie: number; solved: SolvedTree } | undefined;
    let tried = 0;
    for (const combination of combinations(optional, extra)) {
      const nodeSet = new Set([...mustNodes, ...combination]);
      const inside = groups.filter((g) => g.nodes.every((n) => nodeSet.has(n)));
      if (inside.reduce((sum, g) => sum + g.size, 0) < count) continue;
      const solved = mergeSolved(
        inside.map((g) => g.solved),
        localityRankCost['other-numa-node'],
      );
      const pcie = solved.best[count] ?? Infinity;
      if (pcie === Infinity) continue;
      const distance = numaDistanceSum(
        [...nodeSet].sort((a, b) => a - b),
        distances,
      );
      if (!best || distance < best.distance || (distance === best.distance && pcie < best.pcie)) {
        best = { distance, pcie, solved };
      }
      if (++tried >= maxNodeSetsPerSize) break;
    }
    if (best) return best.solved.pick(count);
  }
  throw new Error('referencePreferredAllocation: no NUMA node set holds the wanted devices');
}
