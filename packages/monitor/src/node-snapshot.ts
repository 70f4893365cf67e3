import type { podresources } from '@kdp/api';

/** A device the node can allocate. `numaNode` is the sorted NUMA node IDs joined by "," ("" when unknown). */
export interface DeviceRef {
  resource: string;
  device: string;
  numaNode: string;
}

/** Which pod and container holds something; `container` is "" for pod-level resources. */
export interface Holder {
  namespace: string;
  pod: string;
  container: string;
}

/** A device held by a container. */
export interface AllocatedDevice extends DeviceRef, Holder {}

/** An exclusive CPU held by a container. */
export interface AllocatedCpu extends Holder {
  cpu: number;
}

/** Memory of one type and NUMA placement, without or with a holder. */
export interface MemoryBlock {
  memoryType: string;
  numaNode: string;
  bytes: number;
}

/** Memory held by a container. */
export interface AllocatedMemory extends MemoryBlock, Holder {}

/** What the node can allocate (GetAllocatableResources). */
export interface AllocatableSnapshot {
  devices: DeviceRef[];
  cpuIds: number[];
  memory: MemoryBlock[];
}

/** One consistent view of the node, from GetAllocatableResources (when supported) and List. */
export interface NodeSnapshot {
  allocatable: AllocatableSnapshot | undefined;
  allocated: AllocatedDevice[];
  /** Allocatable devices that no container holds; empty when allocatable is unknown. */
  unallocated: DeviceRef[];
  cpus: AllocatedCpu[];
  memory: AllocatedMemory[];
}

/** The NUMA label value of a topology: "0", "0,1", or "" when the kubelet reports none. */
export function numaLabel(topology: podresources.TopologyInfo | undefined): string {
  const ids = [...new Set((topology?.nodes ?? []).map((n) => n.ID))].sort((a, b) => a - b);
  return ids.join(',');
}

const deviceKey = (resource: string, device: string) => `${resource}\u0000${device}`;

const memoryBlocks = (memory: podresources.ContainerMemory[]): MemoryBlock[] =>
  memory.map((m) => ({ memoryType: m.memoryType, numaNode: numaLabel(m.topology), bytes: m.size }));

/** Flattens the kubelet's responses into labelled rows, de-duplicated, NUMA placement taken from allocatable. */
export function buildNodeSnapshot(
  allocatableResponse: podresources.AllocatableResourcesResponse | undefined,
  list: podresources.ListPodResourcesResponse,
): NodeSnapshot {
  const allocatableByKey = new Map<string, DeviceRef>();
  for (const group of allocatableResponse?.devices ?? []) {
    for (const device of group.deviceIds) {
      const ref = { resource: group.resourceName, device, numaNode: numaLabel(group.topology) };
      allocatableByKey.set(deviceKey(ref.resource, device), ref);
    }
  }

  const allocated = new Map<string, AllocatedDevice>();
  const heldKeys = new Set<string>();
  const cpus = new Map<string, AllocatedCpu>();
  const memory: AllocatedMemory[] = [];
  const addCpusAndMemory = (holder: Holder, cpuIds: number[], mem: podresources.ContainerMemory[]) => {
    for (const cpu of cpuIds)
      cpus.set(`${holder.namespace}/${holder.pod}/${holder.container}/${cpu}`, { ...holder, cpu });
    for (const block of memoryBlocks(mem)) memory.push({ ...holder, ...block });
  };

  for (const pod of list.podResources) {
    addCpusAndMemory({ namespace: pod.namespace, pod: pod.name, container: '' }, pod.cpuIds, pod.memory);
    for (const container of pod.containers) {
      const holder = { namespace: pod.namespace, pod: pod.name, container: container.name };
      for (const group of container.devices) {
        for (const device of group.deviceIds) {
          const key = deviceKey(group.resourceName, device);
          heldKeys.add(key);
          const numaNode = allocatableByKey.get(key)?.numaNode ?? numaLabel(group.topology);
          const row = { ...holder, resource: group.resourceName, device, numaNode };
          allocated.set(`${holder.namespace}/${holder.pod}/${holder.container}\u0000${key}`, row);
        }
      }
      addCpusAndMemory(holder, container.cpuIds, container.memory);
    }
  }

  const allocatable: AllocatableSnapshot | undefined = allocatableResponse && {
    devices: [...allocatableByKey.values()],
    cpuIds: [...new Set(allocatableResponse.cpuIds)].sort((a, b) => a - b),
    memory: memoryBlocks(allocatableResponse.memory),
  };
  return {
    allocatable,
    allocated: [...allocated.values()],
    unallocated: allocatable
      ? allocatable.devices.filter((d) => !heldKeys.has(deviceKey(d.resource, d.device)))
      : [],
    cpus: [...cpus.values()],
    memory,
  };
}
