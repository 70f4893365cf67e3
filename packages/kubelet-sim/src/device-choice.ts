import type { Device } from '@kdp/api';

/** NUMA node key of a device without topology (the kubelet's fake node -1). */
const noTopology = -1;

/** Whether any device lists a NUMA node, making the resource topology-aware (P-32). */
export function isTopologyAware(devices: readonly Device[]): boolean {
  return devices.some((d) => (d.topology?.nodes.length ?? 0) > 0);
}

/** Candidate devices split the way the kubelet's `filterByAffinity` splits them (P-34). */
export interface AffinityGroups {
  /** On a NUMA node inside the affinity. */
  readonly aligned: string[];
  /** On other NUMA nodes. */
  readonly unaligned: string[];
  /** Without topology (or every candidate when there is no affinity or no topology). */
  readonly noAffinity: string[];
}

/**
 * Orders the candidate devices as the kubelet chooses them (P-34): devices on NUMA nodes inside the affinity,
 * then devices on other nodes, then devices without topology; within each group nodes with fewer candidate
 * devices first (ties by node number), devices by ID. Without an affinity every NUMA node is "other", which
 * keeps devices of one node together where the kubelet would pick in Go map order.
 */
export function groupByAffinity(
  devices: readonly Device[],
  candidates: ReadonlySet<string>,
  affinity: readonly number[] | undefined,
): AffinityGroups {
  if (!isTopologyAware(devices)) {
    return { aligned: [], unaligned: [], noAffinity: [...candidates].sort() };
  }
  const perNode = new Map<number, string[]>();
  for (const device of devices) {
    if (!candidates.has(device.ID)) continue;
    const nodes = device.topology?.nodes.map((n) => n.ID) ?? [];
    for (const node of nodes.length > 0 ? nodes : [noTopology]) {
      const list = perNode.get(node) ?? [];
      if (!list.includes(device.ID)) list.push(device.ID);
      perNode.set(node, list);
    }
  }
  const inAffinity = (node: number): boolean => affinity?.includes(node) ?? false;
  const rank = (node: number): number => (node === noTopology ? 2 : inAffinity(node) ? 0 : 1);
  const nodes = [...perNode.keys()].sort(
    (a, b) => rank(a) - rank(b) || (perNode.get(a)?.length ?? 0) - (perNode.get(b)?.length ?? 0) || a - b,
  );
  const seen = new Set<string>();
  const groups: AffinityGroups = { aligned: [], unaligned: [], noAffinity: [] };
  for (const node of nodes) {
    const target =
      node === noTopology ? groups.noAffinity : inAffinity(node) ? groups.aligned : groups.unaligned;
    for (const id of [...(perNode.get(node) ?? [])].sort()) {
      if (seen.has(id)) continue;
      seen.add(id);
      target.push(id);
    }
  }
  return groups;
}

/** What {@link chooseDevices} needs to know. */
export interface DeviceChoiceInput {
  /** The resource's last device list (for topology). */
  readonly devices: readonly Device[];
  /** Healthy devices no other container holds. */
  readonly available: ReadonlySet<string>;
  /** How many devices the container asks for. */
  readonly count: number;
  /** Topology-manager NUMA affinity, if any. */
  readonly affinity: readonly number[] | undefined;
  /**
   * Asks the plugin's GetPreferredAllocation (`available`, `must_include`); undefined when the plugin does not
   * advertise it (P-26).
   */
  readonly preferred: ((pool: string[], mustInclude: string[]) => Promise<string[]>) | undefined;
}

/**
 * Chooses `count` of the available devices as the kubelet's `devicesToAllocate` does (P-26, P-34): when the
 * aligned devices are more than needed, the plugin's preference among them, then the aligned ones; otherwise
 * every aligned device, then the plugin's preference among the rest (available = candidates and the devices
 * already chosen, must_include = the devices already chosen), then unaligned ones, then ones without topology.
 * The plugin's answer is intersected with the candidates; unknown IDs are ignored, a shortfall filled.
 */
export async function chooseDevices(input: DeviceChoiceInput): Promise<string[]> {
  const { count } = input;
  const chosen: string[] = [];
  const takeFrom = (ids: Iterable<string>): boolean => {
    for (const id of ids) {
      if (chosen.length === count) break;
      if (!chosen.includes(id)) chosen.push(id);
    }
    return chosen.length === count;
  };
  const preferred = async (candidates: readonly string[]): Promise<string[]> => {
    if (input.preferred === undefined) return [];
    const pool = [...new Set([...candidates, ...chosen])];
    const ids = await input.preferred(pool, [...chosen]);
    return ids.filter((id) => candidates.includes(id));
  };
  const groups = groupByAffinity(input.devices, input.available, input.affinity);
  if (count < groups.aligned.length) {
    takeFrom(await preferred(groups.aligned));
    takeFrom(groups.aligned);
  } else if (!takeFrom(groups.aligned)) {
    takeFrom(await preferred([...groups.aligned, ...groups.unaligned, ...groups.noAffinity]));
    takeFrom(groups.unaligned);
    takeFrom(groups.noAffinity);
  }
  return chosen;
}
