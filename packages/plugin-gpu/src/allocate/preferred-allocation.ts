import { topologyPreferredAllocation, type PluginDevice, type PreferredAllocationContext } from '@kdp/core';
import type { GpuPayload } from '../resources/plan-resources';

/** Pair weight of two AMD GPUs, lower is better (ROCm's scheme): XGMI 10 / PCIe 40, plus NUMA same 10 / other 20. */
export function amdPairWeight(a: PluginDevice<GpuPayload>, b: PluginDevice<GpuPayload>): number {
  const ga = a.payload?.gpu;
  const gb = b.payload?.gpu;
  if (ga === undefined || gb === undefined) return 60;
  const link = ga.xgmiPeers.includes(gb.id) || gb.xgmiPeers.includes(ga.id) ? 10 : 40;
  const sameNuma = ga.numaNodes.length > 0 && ga.numaNodes.some((node) => gb.numaNodes.includes(node));
  return link + (sameNuma ? 10 : 20);
}

const MAX_SUBSETS = 20_000;

/** The subset of `size` (holding `mustInclude`) with the lowest sum of pair weights; greedy when too many. */
export function lowestWeightSubset<T>(
  available: readonly T[],
  mustInclude: readonly T[],
  size: number,
  weight: (a: T, b: T) => number,
): T[] {
  const rest = available.filter((item) => !mustInclude.includes(item));
  const need = size - mustInclude.length;
  if (need <= 0) return mustInclude.slice(0, size);
  if (need >= rest.length) return [...mustInclude, ...rest].slice(0, size);
  const cost = (set: readonly T[]): number =>
    set.reduce((sum, a, i) => set.slice(i + 1).reduce((total, b) => total + weight(a, b), sum), 0);
  let count = 1;
  for (let i = 0; i < need; i++) count = (count * (rest.length - i)) / (i + 1);
  if (count <= MAX_SUBSETS) {
    let best: T[] | undefined;
    let bestCost = Number.POSITIVE_INFINITY;
    const pick: T[] = [];
    const walk = (start: number): void => {
      if (pick.length === need) {
        const set = [...mustInclude, ...pick];
        const c = cost(set);
        if (c < bestCost) [best, bestCost] = [set, c];
        return;
      }
      for (let i = start; i <= rest.length - (need - pick.length); i++) {
        pick.push(rest[i] as T);
        walk(i + 1);
        pick.pop();
      }
    };
    walk(0);
    return best ?? [...mustInclude, ...rest.slice(0, need)];
  }
  const chosen = [...mustInclude];
  const left = [...rest];
  while (chosen.length < size && left.length > 0) {
    let bestIndex = 0;
    let bestAdded = Number.POSITIVE_INFINITY;
    left.forEach((item, index) => {
      const added = chosen.reduce((sum, other) => sum + weight(item, other), 0);
      if (added < bestAdded) [bestIndex, bestAdded] = [index, added];
    });
    chosen.push(...left.splice(bestIndex, 1));
  }
  return chosen;
}

type Topology = (context: PreferredAllocationContext<GpuPayload>) => readonly string[];

/** NUMA nodes of a device as a key (`""` when unknown). */
const numaOf = (device: PluginDevice<GpuPayload>): string => [...(device.numaNodes ?? [])].sort().join(',');

/**
 * The replicas a request should be taken from: those on the NUMA nodes of the must-include replicas, else on the
 * emptiest NUMA node (the most free replicas) that holds the request; when no single node does, on the NUMA
 * node set that @kdp/topology's chooser picks for it (fewest nodes, then closest).
 */
function numaScope(
  context: PreferredAllocationContext<GpuPayload>,
  topology: Topology,
): readonly PluginDevice<GpuPayload>[] {
  const { available, mustInclude, size } = context;
  if (mustInclude.length === 0) {
    const free = new Map<string, PluginDevice<GpuPayload>[]>();
    for (const device of available) {
      const numa = numaOf(device);
      free.set(numa, [...(free.get(numa) ?? []), device]);
    }
    const emptiest = [...free.entries()]
      .filter(([numa, devices]) => numa !== '' && !numa.includes(',') && devices.length >= size)
      .sort(([na, a], [nb, b]) => b.length - a.length || Number(na) - Number(nb))[0];
    if (emptiest !== undefined) return emptiest[1];
  }
  const chosen = new Set(topology(context));
  const nodes = new Set(available.filter((d) => chosen.has(d.id)).map(numaOf));
  return available.filter((device) => nodes.has(numaOf(device)) || mustInclude.includes(device.id));
}

/**
 * Replicas (time-slicing): first the NUMA node the request belongs on ({@link numaScope}), then spread over its
 * GPUs, taking each next replica from the GPU with the fewest replicas taken and the most free (NVIDIA's
 * "distributed" policy), so that shared GPUs fill evenly.
 */
function distributeReplicas(context: PreferredAllocationContext<GpuPayload>, topology: Topology): string[] {
  const scope = numaScope(context, topology);
  const chosen = [...context.mustInclude];
  const free = new Map<string, string[]>();
  for (const device of scope) {
    if (chosen.includes(device.id)) continue;
    const gpu = device.payload?.gpu.id ?? device.id;
    free.set(gpu, [...(free.get(gpu) ?? []), device.id]);
  }
  const used = new Map<string, number>();
  for (const id of chosen) {
    const gpu = context.available.find((d) => d.id === id)?.payload?.gpu.id ?? id;
    used.set(gpu, (used.get(gpu) ?? 0) + 1);
  }
  while (chosen.length < context.size) {
    const next = [...free.entries()]
      .filter(([, ids]) => ids.length > 0)
      .sort(
        ([ga, a], [gb, b]) =>
          (used.get(ga) ?? 0) - (used.get(gb) ?? 0) || b.length - a.length || (ga < gb ? -1 : 1),
      )[0];
    if (next === undefined) break;
    const [gpu, ids] = next;
    chosen.push(ids.shift() as string);
    used.set(gpu, (used.get(gpu) ?? 0) + 1);
  }
  return chosen;
}

/**
 * The GetPreferredAllocation hook of every GPU resource: replicas on one NUMA node, spread over its GPUs; AMD
 * GPUs with XGMI links by ROCm's pair weights; everything else (NVIDIA, MIG, Intel, AMD without XGMI) by NUMA
 * and PCIe locality through @kdp/topology.
 */
export function preferredAllocation(
  replicas: number,
): (context: PreferredAllocationContext<GpuPayload>) => readonly string[] {
  const topology = topologyPreferredAllocation<GpuPayload>();
  return (context) => {
    if (replicas > 1) return distributeReplicas(context, topology);
    if (context.available.some((device) => (device.payload?.gpu.xgmiPeers.length ?? 0) > 0)) {
      const must = context.available.filter((device) => context.mustInclude.includes(device.id));
      return lowestWeightSubset(context.available, must, context.size, amdPairWeight).map(
        (device) => device.id,
      );
    }
    return topology(context);
  };
}
