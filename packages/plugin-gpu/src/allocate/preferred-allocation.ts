import { topologyPreferredAllocation, type PluginDevice, type PreferredAllocationContext } from '@kdp/core';
import type { GpuPayload } from '../resources/gpu-payload';

/**
 * Pair weight of two AMD devices (GPUs or compute partitions), lower is better, as ROCm's plugin weighs them:
 * same GPU 10 / other 20, plus XGMI 10 (partitions of one GPU count as joined) / PCIe 40, plus NUMA same 10 / other 20.
 */
export function amdPairWeight(a: PluginDevice<GpuPayload>, b: PluginDevice<GpuPayload>): number {
  const ga = a.payload?.gpu;
  const gb = b.payload?.gpu;
  if (ga === undefined || gb === undefined) return 80;
  const sameGpu = ga.pciAddress === gb.pciAddress;
  const xgmi = sameGpu || ga.xgmiPeers.includes(gb.id) || gb.xgmiPeers.includes(ga.id);
  const sameNuma = ga.numaNodes.length > 0 && ga.numaNodes.some((node) => gb.numaNodes.includes(node));
  return (sameGpu ? 10 : 20) + (xgmi ? 10 : 40) + (sameNuma ? 10 : 20);
}

const MAX_GPU_SETS = 20_000;

/** The number of k-subsets of n items, capped just above `MAX_GPU_SETS`. */
function subsetCount(n: number, k: number): number {
  let count = 1;
  for (let i = 0; i < k && count <= MAX_GPU_SETS; i++) count = (count * (n - i)) / (i + 1);
  return count;
}

/** Every k-subset of `items`, in lexicographic order of indexes. */
function* subsets<T>(items: readonly T[], k: number, start = 0, prefix: readonly T[] = []): Generator<T[]> {
  if (prefix.length === k) {
    yield [...prefix];
    return;
  }
  for (let i = start; i <= items.length - (k - prefix.length); i++)
    yield* subsets(items, k, i + 1, [...prefix, items[i] as T]);
}

/** A physical GPU of the request: its free devices (must-include ones left out) and one device standing for it. */
interface GpuGroup {
  readonly gpu: string;
  readonly free: PluginDevice<GpuPayload>[];
  readonly representative: PluginDevice<GpuPayload>;
}

/** How many devices an allocation takes from each GPU. */
type Take = ReadonlyArray<readonly [GpuGroup, number]>;

/** The summed ROCm pair weight of every pair of devices an allocation takes (pairs on one GPU included). */
function takeWeight(take: Take): number {
  let sum = 0;
  take.forEach(([a, n], i) => {
    sum += ((n * (n - 1)) / 2) * amdPairWeight(a.representative, a.representative);
    for (const [b, m] of take.slice(i + 1)) sum += n * m * amdPairWeight(a.representative, b.representative);
  });
  return sum;
}

/** GPUs by most free devices first (ties by address): filling them in this order keeps a request together. */
const byMostFree = (a: GpuGroup, b: GpuGroup): number =>
  b.free.length - a.free.length || (a.gpu < b.gpu ? -1 : 1);

/** `need` devices from `set`, the GPUs with the most free first (the fewest pairs that span two GPUs). */
function fill(set: readonly GpuGroup[], need: number): Array<readonly [GpuGroup, number]> {
  let left = need;
  return [...set].sort(byMostFree).map((group) => {
    const n = Math.min(group.free.length, left);
    left -= n;
    return [group, n] as const;
  });
}

/**
 * The extra GPUs a request takes: the fewest that hold it, then the lowest sum of ROCm's pair weights over every
 * pair of devices the request would hold (with `used`, the must-include GPUs and what they hold; each set filled
 * from its GPUs with the most free first), then the fewest free devices (best fit, so that whole GPUs stay whole);
 * greedy where there are too many sets to try.
 */
function chooseGpus(groups: readonly GpuGroup[], used: Take, need: number): GpuGroup[] {
  const capacity = (set: readonly GpuGroup[]): number =>
    set.reduce((sum, group) => sum + group.free.length, 0);
  const weight = (set: readonly GpuGroup[]): number => takeWeight([...used, ...fill(set, need)]);
  for (let k = 1; k <= groups.length; k++) {
    if (subsetCount(groups.length, k) > MAX_GPU_SETS) break;
    let best: { set: GpuGroup[]; weight: number; free: number } | undefined;
    for (const set of subsets(groups, k)) {
      const free = capacity(set);
      if (free < need) continue;
      const w = weight(set);
      if (best === undefined || w < best.weight || (w === best.weight && free < best.free))
        best = { set, weight: w, free };
    }
    if (best !== undefined) return best.set;
  }
  const chosen: GpuGroup[] = [];
  const left = [...groups];
  while (capacity(chosen) < need && left.length > 0) {
    const remaining = need - capacity(chosen);
    const score = (group: GpuGroup): [number, number] => [
      -Math.min(group.free.length, remaining),
      weight([...chosen, group]),
    ];
    left.sort((a, b) => {
      const [sa, wa] = score(a);
      const [sb, wb] = score(b);
      return sa - sb || wa - wb;
    });
    chosen.push(left.shift() as GpuGroup);
  }
  return chosen;
}

/**
 * AMD GPUs and compute partitions: a request stays on as few GPUs as it can, partitions of one GPU (those of the
 * must-include devices first) before partitions of its XGMI peers, then of GPUs on the same NUMA node, at the
 * lowest summed ROCm pair weight (at least as low as ROCm's best-effort policy on its own MI300X tests). A request
 * one GPU holds takes the GPU with the fewest free (leaving the others whole); one that needs several takes them
 * from the chosen GPUs with the most free first.
 */
export function fewestGpusAllocation(context: PreferredAllocationContext<GpuPayload>): string[] {
  const { available, mustInclude, size } = context;
  const gpuOf = (device: PluginDevice<GpuPayload>): string => device.payload?.gpu.pciAddress ?? device.id;
  const byGpu = new Map<string, PluginDevice<GpuPayload>[]>();
  for (const device of available) byGpu.set(gpuOf(device), [...(byGpu.get(gpuOf(device)) ?? []), device]);
  const must = new Set(mustInclude);
  const mustGpus = new Set(available.filter((device) => must.has(device.id)).map(gpuOf));
  const groups = [...byGpu.entries()].map(([gpu, devices]) => ({
    gpu,
    free: devices.filter((device) => !must.has(device.id)),
    representative: devices[0] as PluginDevice<GpuPayload>,
  }));
  const used = groups.filter((group) => mustGpus.has(group.gpu));
  const need = size - mustInclude.length;
  if (need <= 0) return mustInclude.slice(0, size);
  const usedFree = used.reduce((sum, group) => sum + group.free.length, 0);
  const others = groups.filter((group) => !mustGpus.has(group.gpu) && group.free.length > 0);
  // What the must-include GPUs hold once their free devices are taken too.
  const held: Take = used.map((group) => [
    group,
    group.free.length + available.filter((d) => must.has(d.id) && gpuOf(d) === group.gpu).length,
  ]);
  const extra = usedFree >= need ? [] : chooseGpus(others, held, need - usedFree);
  const byFree = (a: GpuGroup, b: GpuGroup): number =>
    a.free.length - b.free.length || (a.gpu < b.gpu ? -1 : 1);
  const chosen = [...mustInclude];
  const order = extra.length === 1 ? extra : [...extra].sort(byMostFree);
  for (const group of [...[...used].sort(byFree), ...order])
    for (const device of group.free) if (chosen.length < size) chosen.push(device.id);
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

/** Whether devices are AMD GPUs joined by XGMI or compute partitions (several devices on one GPU). */
function amdTopology(devices: readonly PluginDevice<GpuPayload>[]): boolean {
  const amd = devices.filter((device) => device.payload?.gpu.kind === 'amd');
  const gpus = new Set(amd.map((device) => device.payload?.gpu.pciAddress));
  return amd.some((device) => (device.payload?.gpu.xgmiPeers.length ?? 0) > 0) || gpus.size < amd.length;
}

/**
 * The GetPreferredAllocation hook of every GPU resource: replicas on one NUMA node, spread over its GPUs; AMD
 * GPUs with XGMI links or compute partitions on the fewest GPUs, by ROCm's pair weights
 * ({@link fewestGpusAllocation}); everything else (NVIDIA, MIG, Intel, AMD without XGMI) by NUMA and PCIe
 * locality through @kdp/topology.
 */
export function preferredAllocation(
  replicas: number,
): (context: PreferredAllocationContext<GpuPayload>) => readonly string[] {
  const topology = topologyPreferredAllocation<GpuPayload>();
  return (context) => {
    if (replicas > 1) return distributeReplicas(context, topology);
    if (amdTopology(context.available)) return fewestGpusAllocation(context);
    return topology(context);
  };
}
