import type { NodeInfo, ResourceSlice } from '../dra-types';
import { nodeMatches } from '../node-selector';

/** A resource pool as the allocator uses it on one node. */
export interface Pool {
  readonly driver: string;
  readonly name: string;
  /** Slices with devices available on the node, by name. */
  readonly slices: readonly ResourceSlice[];
  /** Device slices of the pool not available on the node (their devices still consume shared counters). */
  readonly otherSlices: readonly ResourceSlice[];
  /** Counter sets of the pool by name: counter name → available value. */
  readonly counterSets: ReadonlyMap<string, Readonly<Record<string, { readonly value: string }>>>;
  /** Not all of the current generation's slices are published yet. */
  readonly incomplete: boolean;
  /** Why the pool cannot be used (duplicate devices, counters that do not exist), if so. */
  readonly invalid?: string;
}

const poolKey = (s: ResourceSlice): string => `${s.spec.driver}/${s.spec.pool.name}`;

const relevantOnNode = (slice: ResourceSlice, node: NodeInfo): boolean => {
  const spec = slice.spec;
  if ((spec.nodeName ?? '') !== '' || spec.allNodes === true || spec.nodeSelector !== undefined)
    return nodeMatches(node, spec);
  if (spec.perDeviceNodeSelection === true) return (spec.devices ?? []).some((d) => nodeMatches(node, d));
  return false;
};

/** Keeps the slices of each pool's highest generation. */
function newestGeneration(slices: readonly ResourceSlice[]): Map<string, ResourceSlice[]> {
  const pools = new Map<string, ResourceSlice[]>();
  for (const slice of slices) {
    const key = poolKey(slice);
    const have = pools.get(key);
    const generation = slice.spec.pool.generation;
    if (have === undefined || generation > (have[0]?.spec.pool.generation ?? 0)) pools.set(key, [slice]);
    else if (generation === have[0]?.spec.pool.generation) have.push(slice);
  }
  return pools;
}

const byName = (a: ResourceSlice, b: ResourceSlice): number =>
  (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');

function invalidReason(
  deviceSlices: readonly ResourceSlice[],
  counterSets: Pool['counterSets'],
): string | undefined {
  const seen = new Set<string>();
  for (const slice of deviceSlices) {
    for (const device of slice.spec.devices ?? []) {
      if (seen.has(device.name)) return `duplicate device name ${device.name}`;
      seen.add(device.name);
      for (const use of device.consumesCounters ?? []) {
        const set = counterSets.get(use.counterSet);
        if (set === undefined) return `counter set ${use.counterSet} not found for device ${device.name}`;
        for (const counter of Object.keys(use.counters)) {
          if (set[counter] === undefined)
            return `counter ${counter} not found in counter set ${use.counterSet} for device ${device.name}`;
        }
      }
    }
  }
  return undefined;
}

/**
 * The pools usable on `node`, as upstream's GatherPools: slices of the node, of all nodes or whose node selector
 * matches; per pool only the highest generation; complete when all `resourceSliceCount` slices are present
 * (counted over all slices of the pool), sorted by driver and pool name.
 */
export function gatherPools(node: NodeInfo, allSlices: readonly ResourceSlice[]): Pool[] {
  const everything = newestGeneration(allSlices);
  const pools: Pool[] = [];
  for (const [key, onNodeOrNot] of newestGeneration(allSlices.filter((s) => relevantOnNode(s, node)))) {
    const all = everything.get(key) ?? [];
    const first = onNodeOrNot[0];
    if (first === undefined || first.spec.pool.generation < (all[0]?.spec.pool.generation ?? 0)) continue;
    const isCounters = (s: ResourceSlice): boolean => (s.spec.sharedCounters ?? []).length > 0;
    const names = new Set(onNodeOrNot.map((s) => s.metadata.name));
    const counterSets = new Map(
      all
        .filter(isCounters)
        .flatMap((s) => (s.spec.sharedCounters ?? []).map((c) => [c.name, c.counters] as const)),
    );
    const slices = onNodeOrNot.filter((s) => !isCounters(s)).sort(byName);
    const otherSlices = all.filter((s) => !isCounters(s) && !names.has(s.metadata.name)).sort(byName);
    const incomplete = all.length !== first.spec.pool.resourceSliceCount;
    const invalid = incomplete ? undefined : invalidReason([...slices, ...otherSlices], counterSets);
    pools.push({
      driver: first.spec.driver,
      name: first.spec.pool.name,
      slices,
      otherSlices,
      counterSets,
      incomplete,
      ...(invalid === undefined ? {} : { invalid }),
    });
  }
  return pools.sort((a, b) => a.driver.localeCompare(b.driver) || a.name.localeCompare(b.name));
}
