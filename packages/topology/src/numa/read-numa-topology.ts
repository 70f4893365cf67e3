import { parseSysfsInt } from '../sysfs/sysfs-number';
import type { Sysfs } from '../sysfs/create-sysfs';

/** One NUMA node as sysfs describes it. */
export interface NumaNode {
  readonly id: number;
  /** CPUs of the node ([] for a memory-only node, or when cpulist was unreadable). */
  readonly cpus: readonly number[];
  /** True when the node has memory but no CPUs (CXL memory expanders, HBM in flat mode). */
  readonly memoryOnly: boolean;
  /** MemTotal from the node's meminfo, in KiB. */
  readonly memTotalKiB?: number;
}

/** The machine's NUMA layout, with what could not be read said in `warnings`. */
export interface NumaTopology {
  /** Nodes with a devices/system/node/node<N> directory, by id. */
  readonly nodes: readonly NumaNode[];
  /** devices/system/node/online. */
  readonly online: readonly number[];
  /** devices/system/node/possible. */
  readonly possible: readonly number[];
  /** node → node → distance (10 = local), from the `distance` files or the 10/20 fallback. */
  readonly distances: ReadonlyMap<number, ReadonlyMap<number, number>>;
  readonly warnings: readonly string[];
}

const nodeRoot = 'devices/system/node';

/** Reads NUMA nodes, their CPUs, memory and distances; never throws (problems become warnings). */
export async function readNumaTopology(sysfs: Sysfs): Promise<NumaTopology> {
  const warnings: string[] = [];
  const ids = (await sysfs.list(nodeRoot))
    .map((name) => /^node(\d{1,5})$/.exec(name)?.[1])
    .filter((id): id is string => id !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  if (ids.length === 0) {
    warnings.push(`no NUMA nodes under ${sysfs.root}/${nodeRoot}: device topology is unknown`);
    return { nodes: [], online: [], possible: [], distances: new Map(), warnings };
  }
  const online = await readNodeList(sysfs, 'online', ids, warnings);
  const possible = await readNodeList(sysfs, 'possible', online, warnings);
  const nodes = await Promise.all(ids.map((id) => readNode(sysfs, id, warnings)));
  const distances = new Map<number, Map<number, number>>();
  await Promise.all(
    ids.map(async (id) => distances.set(id, await readDistances(sysfs, id, online, ids, warnings))),
  );
  return { nodes, online, possible, distances: sortedMap(distances), warnings };
}

/** The one node whose CPUs overlap `cpus`, when exactly one does; undefined when none or several do. */
export function nodeOfCpus(topology: NumaTopology, cpus: readonly number[]): number | undefined {
  const wanted = new Set(cpus);
  const matches = topology.nodes.filter((node) => node.cpus.some((cpu) => wanted.has(cpu)));
  return matches.length === 1 ? matches[0]?.id : undefined;
}

async function readNodeList(
  sysfs: Sysfs,
  name: string,
  fallback: readonly number[],
  warnings: string[],
): Promise<number[]> {
  const path = `${nodeRoot}/${name}`;
  const list = await sysfs.readCpuList(path);
  if (list !== undefined) return list;
  warnings.push(`${path} is missing or malformed; using ${fallback.join(',')}`);
  return [...fallback];
}

async function readNode(sysfs: Sysfs, id: number, warnings: string[]): Promise<NumaNode> {
  const dir = `${nodeRoot}/node${id}`;
  const [cpus, meminfo] = await Promise.all([
    sysfs.readCpuList(`${dir}/cpulist`),
    sysfs.read(`${dir}/meminfo`),
  ]);
  if (cpus === undefined)
    warnings.push(`${dir}/cpulist is missing or malformed; node ${id} has no known CPUs`);
  const memTotalKiB = parseMemTotal(meminfo);
  return {
    id,
    cpus: cpus ?? [],
    memoryOnly: cpus !== undefined && cpus.length === 0,
    ...(memTotalKiB !== undefined ? { memTotalKiB } : {}),
  };
}

/** Parses "Node 0 MemTotal:  263921556 kB" out of a node's meminfo. */
export function parseMemTotal(meminfo: string | undefined): number | undefined {
  const match = meminfo === undefined ? null : /MemTotal:\s*(\d{1,15})\s*kB/.exec(meminfo);
  return match ? parseSysfsInt(match[1] as string) : undefined;
}

async function readDistances(
  sysfs: Sysfs,
  id: number,
  online: readonly number[],
  ids: readonly number[],
  warnings: string[],
): Promise<Map<number, number>> {
  const path = `${nodeRoot}/node${id}/distance`;
  const text = await sysfs.read(path);
  const values = text === undefined ? [] : text.split(/\s+/).map(parseSysfsInt);
  const columns = online.length > 0 ? online : ids;
  if (values.length === columns.length && values.every((v) => v !== undefined && v >= 0)) {
    return new Map(columns.map((node, i) => [node, values[i] as number]));
  }
  warnings.push(
    `${path} is ${text === undefined ? 'missing' : `malformed ("${text.slice(0, 60)}")`}; assuming distance 10 local, 20 remote`,
  );
  return new Map(ids.map((node) => [node, node === id ? 10 : 20]));
}

function sortedMap<V>(map: Map<number, V>): Map<number, V> {
  return new Map([...map].sort(([a], [b]) => a - b));
}
