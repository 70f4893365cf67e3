import type { DeviceLocality, PreferredAllocationInput } from './allocation-types';
import { numaDistanceSum } from './allocation-cost';
import { combinations } from './node-set-combinations';
import { stringsOf } from './strings-of';
import { compareStrings } from './compare-strings';
import { type CostCurve, type MergeBudget, mergeWithin } from './cost-curve';
import { type GroupDevice, localityCurve } from './locality-curve';
import { cleanNumaNodes, cleanPciePath, localityRankCost } from './locality-rank';

/** Above this many candidate NUMA node sets of one size, the search keeps the best found so far. */
const maxNodeSetsPerSize = 4096;
/**
 * Inner steps (see `mergeWork`) exact merges may take in one call, about 5 ms on a loaded 2-core machine; a
 * merge beyond what is left runs coarse (every child full or at its must-include count but one). Small and
 * medium machines never reach it; the bench's questions at 10,000 candidates answer the same as exactly.
 */
const exactMergeBudget = 3_000_000;

interface NumaGroup {
  readonly nodes: readonly number[];
  readonly size: number;
  readonly hasMust: boolean;
  readonly curve: CostCurve;
}

/**
 * Deterministic: returns exactly min(size, |available ∪ mustInclude|) IDs (never fewer than the mustInclude
 * IDs), every mustInclude ID, only available or mustInclude IDs, with the least cost in the order of
 * `compareAllocationCost`: devices of unknown locality, NUMA nodes spanned, NUMA distance between them, then
 * pairwise PCIe closeness (the sum of `localityRankCost` over all pairs). The answer is sorted by ID.
 *
 * NUMA node sets are tried smallest first (then by distance); inside one, the cheapest devices come from the cost
 * curves of `localityCurve`, whose work grows with the PCIe groups (root ports, switches, PFs) and the device
 * counts their fills reach, not with device pairs. Exact within a work budget per call (`exactMergeBudget`);
 * merges beyond it are coarse (see `MergeOptions.coarse`): valid answers, possibly not the cheapest.
 */
export function choosePreferredAllocation(input: PreferredAllocationInput): string[] {
  const must = new Set(stringsOf(input.mustInclude));
  // Unsorted: the groups below order their devices themselves, and only the answer is sorted.
  const universe = [...new Set([...stringsOf(input.available), ...must])];
  const wanted = Number.isFinite(input.size) ? Math.max(0, Math.floor(input.size)) : 0;
  const total = Math.max(must.size, Math.min(wanted, universe.length));
  // sort() without a comparator orders strings by UTF-16 code units, as compareStrings does, natively.
  if (total === universe.length) return universe.sort();
  if (total === must.size) return [...must].sort();

  const byKey = new Map<string, { nodes: readonly number[]; devices: GroupDevice[] }>();
  const unknown: GroupDevice[] = [];
  let knownCount = 0;
  let unknownMust = 0;
  for (const id of universe) {
    const locality: DeviceLocality | undefined = input.locality.get(id);
    const device: GroupDevice = { id, pciePath: cleanPciePath(locality), mustInclude: must.has(id) };
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

  const budget: MergeBudget = { left: exactMergeBudget };
  const unknownTaken = Math.max(unknownMust, total - knownCount);
  const knownTaken = total - unknownTaken;
  const picked =
    unknownTaken > 0
      ? localityCurve(unknown, localityRankCost.unknown, unknownTaken, budget).pick(unknownTaken, true)
      : [];
  if (knownTaken > 0) {
    const groups: NumaGroup[] = [...byKey.keys()].sort(compareStrings).map((key) => {
      const group = byKey.get(key) as { nodes: readonly number[]; devices: GroupDevice[] };
      return {
        nodes: group.nodes,
        size: group.devices.length,
        hasMust: group.devices.some((d) => d.mustInclude),
        curve: localityCurve(group.devices, localityRankCost['same-numa-node'], knownTaken, budget),
      };
    });
    picked.push(...chooseKnown(groups, knownTaken, input.distances, budget));
  }
  return picked.sort();
}

/** Finds the smallest NUMA node set that can hold `count` devices, then the closest one, then the best devices in it. */
function chooseKnown(
  groups: readonly NumaGroup[],
  count: number,
  distances: PreferredAllocationInput['distances'],
  budget: MergeBudget,
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
    let best: { distance: number; pcie: number; curve: CostCurve } | undefined;
    let tried = 0;
    for (const combination of combinations(optional, extra)) {
      const nodeSet = new Set([...mustNodes, ...combination]);
      const inside = groups.filter((g) => g.nodes.every((n) => nodeSet.has(n)));
      if (inside.reduce((sum, g) => sum + g.size, 0) < count) continue;
      // Every must-include group is inside and the set holds `count`: a choice exists, so the set counts as tried.
      const limitReached = ++tried >= maxNodeSetsPerSize;
      const distance = numaDistanceSum(
        [...nodeSet].sort((a, b) => a - b),
        distances,
      );
      if (!best || distance <= best.distance) {
        const curves = inside.map((g) => g.curve);
        const curve =
          curves.length === 1
            ? (curves[0] as CostCurve)
            : mergeWithin(budget, curves, localityRankCost['other-numa-node'], count, count);
        const pcie = curve.any[count] ?? Infinity;
        if (!best || distance < best.distance || pcie < best.pcie) best = { distance, pcie, curve };
      }
      if (limitReached) break;
    }
    if (best) return best.curve.pick(count, true);
  }
  throw new Error('choosePreferredAllocation: no NUMA node set holds the wanted devices');
}
