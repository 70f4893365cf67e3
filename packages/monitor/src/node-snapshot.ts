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

/**
 * A device a container holds through a DRA ResourceClaim (PodResources `dynamic_resources`): the claim (in the
 * pod's namespace) and the driver's pool and device. The kubelet does not say which request of the claim the
 * device serves.
 */
export interface AllocatedDraDevice extends Holder {
  claim: string;
  driver: string;
  pool: string;
  device: string;
}

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
  /** Devices held through DRA claims, once per container, claim and device. */
  draDevices: AllocatedDraDevice[];
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

/**
 * Flattens the kubelet's responses into labelled rows. The kubelet lists a device once per NUMA node it sits
 * on (P-35), so entries of one device are merged and their NUMA nodes joined; an allocated device takes its
 * NUMA placement from the allocatable list when it is there. Devices of DRA claims (`dynamic_resources`) are
 * listed apart: they are not in the device-plugin allocatable list.
 */
export function buildNodeSnapshot(
  allocatableResponse: podresources.AllocatableResourcesResponse | undefined,
  list: podresources.ListPodResourcesResponse,
): NodeSnapshot {
  const allocatableNuma = new Map<
    string,
    { resource: string; device: string; nodes: podresources.NUMANode[] }
  >();
  for (const group of allocatableResponse?.devices ?? []) {
    for (const device of group.deviceIds) {
      const key = deviceKey(group.resourceName, device);
      const entry = allocatableNuma.get(key) ?? { resource: group.resourceName, device, nodes: [] };
      entry.nodes.push(...(group.topology?.nodes ?? []));
      allocatableNuma.set(key, entry);
    }
  }
  const allocatableByKey = new Map<string, DeviceRef>();
  for (const [key, e] of allocatableNuma) {
    allocatableByKey.set(key, {
      resource: e.resource,
      device: e.device,
      numaNode: numaLabel({ nodes: e.nodes }),
    });
  }

  const held = new Map<
    string,
    { row: Omit<AllocatedDevice, 'numaNode'>; deviceKey: string; nodes: podresources.NUMANode[] }
  >();
  const cpus = new Map<string, AllocatedCpu>();
  const memory: AllocatedMemory[] = [];
  const draDevices = new Map<string, AllocatedDraDevice>();
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
          const rowKey = `${holder.namespace}/${holder.pod}/${holder.container}\u0000${key}`;
          const entry = held.get(rowKey) ?? {
            row: { ...holder, resource: group.resourceName, device },
            deviceKey: key,
            nodes: [],
          };
          entry.nodes.push(...(group.topology?.nodes ?? []));
          held.set(rowKey, entry);
        }
      }
      addCpusAndMemory(holder, container.cpuIds, container.memory);
      for (const claim of container.dynamicResources ?? []) {
        for (const { driverName, poolName, deviceName } of claim.claimResources) {
          const row = {
            ...holder,
            claim: claim.claimName,
            driver: driverName,
            pool: poolName,
            device: deviceName,
          };
          draDevices.set(JSON.stringify(Object.values(row)), row);
        }
      }
    }
  }
  const heldKeys = new Set([...held.values()].map((e) => e.deviceKey));
  const allocated = [...held.values()].map(({ row, deviceKey: key, nodes }) => ({
    ...row,
    numaNode: allocatableByKey.get(key)?.numaNode ?? numaLabel({ nodes }),
  }));

  const allocatable: AllocatableSnapshot | undefined = allocatableResponse && {
    devices: [...allocatableByKey.values()],
    cpuIds: [...new Set(allocatableResponse.cpuIds)].sort((a, b) => a - b),
    memory: memoryBlocks(allocatableResponse.memory),
  };
  return {
    allocatable,
    allocated,
    draDevices: [...draDevices.values()],
    unallocated: allocatable
      ? allocatable.devices.filter((d) => !heldKeys.has(deviceKey(d.resource, d.device)))
      : [],
    cpus: [...cpus.values()],
    memory,
  };
}
