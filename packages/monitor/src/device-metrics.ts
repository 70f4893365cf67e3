import { Gauge, type Registry } from 'prom-client';
import type { DraHealthState } from './dra-health-watcher';
import type { NodeSnapshot } from './node-snapshot';
import type { DeviceHealth } from './plugin-health-scraper';

/** The health of a DRA device as its driver reports it, or undefined when unknown to the monitor. */
export type DraHealthLookup = (driver: string, pool: string, device: string) => DraHealthState | undefined;

/** Node and per-container resource metrics, rebuilt from each snapshot so that gone pods lose their series. */
export interface DeviceMetrics {
  /**
   * Replaces every series with the snapshot's (and the health joins: device plugins' by resource and device, DRA
   * drivers' by driver, pool and device); synchronous, so no scrape sees half of it.
   */
  render(
    snapshot: NodeSnapshot,
    health: ReadonlyMap<string, DeviceHealth>,
    draHealth?: DraHealthLookup,
  ): void;
}

/** The value of `kdp_container_dra_device_health` for each state. */
const draHealthValue: Readonly<Record<DraHealthState, number>> = { Healthy: 1, Unhealthy: 0, Unknown: -1 };

const holderLabels = ['namespace', 'pod', 'container'] as const;
const draDeviceLabels = [...holderLabels, 'claim', 'driver', 'pool', 'device'] as const;

/** The key {@link DeviceMetrics.render} looks device health up by. */
export function deviceHealthKey(resource: string, device: string): string {
  return `${resource}\u0000${device}`;
}

const countBy = <T>(rows: readonly T[], key: (row: T) => string): Map<string, { row: T; count: number }> => {
  const out = new Map<string, { row: T; count: number }>();
  for (const row of rows) {
    const k = key(row);
    const entry = out.get(k);
    if (entry) entry.count += 1;
    else out.set(k, { row, count: 1 });
  }
  return out;
};

/** Counts distinct rows (by `identity`, e.g. a device held by two containers counts once) per `group`. */
const countDistinct = <T>(
  rows: readonly T[],
  identity: (row: T) => string,
  group: (row: T) => string,
): Iterable<{ row: T; count: number }> =>
  countBy(
    [...countBy(rows, identity).values()].map((e) => e.row),
    group,
  ).values();

/** Registers the device, CPU and memory gauges on `registry`. */
export function createDeviceMetrics(registry: Registry): DeviceMetrics {
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Gauge<L>({ name, help, labelNames, registers: [registry] });

  const allocatable = gauge(
    'kdp_allocatable_devices',
    'Devices the kubelet can allocate, per resource and NUMA node ("" when unknown; "0,1" for a device on several).',
    ['resource', 'numa_node'],
  );
  const allocated = gauge(
    'kdp_allocated_devices',
    'Devices held by containers, per resource and NUMA node.',
    ['resource', 'numa_node'],
  );
  const unallocated = gauge(
    'kdp_unallocated_devices',
    'Allocatable devices that no container holds, per resource and NUMA node.',
    ['resource', 'numa_node'],
  );
  const containerDevices = gauge(
    'kdp_container_allocated_devices',
    'Device held by a container: 1 per device (sum for counts).',
    [...holderLabels, 'resource', 'device', 'numa_node'],
  );
  const containerHealth = gauge(
    'kdp_container_device_health',
    'Health of a device held by a container, from the plugin metrics endpoints: 1 Healthy, 0 Unhealthy.',
    [...holderLabels, 'resource', 'device'],
  );
  const draAllocated = gauge(
    'kdp_dra_allocated_devices',
    'Devices held by containers through DRA ResourceClaims, per driver and pool.',
    ['driver', 'pool'],
  );
  const containerDraDevices = gauge(
    'kdp_container_dra_allocated_devices',
    'Device held by a container through a DRA ResourceClaim (PodResources dynamic_resources): 1 per device.',
    draDeviceLabels,
  );
  const containerDraHealth = gauge(
    'kdp_container_dra_device_health',
    "Health of a DRA device held by a container, from its driver's NodeWatchResources: 1 Healthy, 0 Unhealthy, " +
      '-1 Unknown (reported so, or not refreshed within its timeout).',
    draDeviceLabels,
  );
  const allocatableCpus = gauge('kdp_allocatable_cpus', 'CPUs the kubelet can assign exclusively.', []);
  const containerCpus = gauge(
    'kdp_container_exclusive_cpus',
    'Exclusive CPU held by a container (container "" for pod-level): 1 per CPU id.',
    [...holderLabels, 'cpu'],
  );
  const allocatableMemory = gauge(
    'kdp_allocatable_memory_bytes',
    'Memory the kubelet memory manager can assign, per type and NUMA node.',
    ['memory_type', 'numa_node'],
  );
  const containerMemory = gauge(
    'kdp_container_memory_bytes',
    'Memory assigned to a container by the memory manager (container "" for pod-level), per type and NUMA node.',
    [...holderLabels, 'memory_type', 'numa_node'],
  );

  return {
    render(snapshot, health, draHealth) {
      for (const g of [
        allocatable,
        allocated,
        unallocated,
        containerDevices,
        containerHealth,
        draAllocated,
        containerDraDevices,
        containerDraHealth,
        allocatableCpus,
        containerCpus,
        allocatableMemory,
        containerMemory,
      ]) {
        g.reset();
      }
      const byNuma = (d: { resource: string; numaNode: string }) => `${d.resource}\u0000${d.numaNode}`;
      if (snapshot.allocatable) {
        for (const { row, count } of countBy(snapshot.allocatable.devices, byNuma).values()) {
          allocatable.set({ resource: row.resource, numa_node: row.numaNode }, count);
          unallocated.set({ resource: row.resource, numa_node: row.numaNode }, 0);
        }
        for (const { row, count } of countBy(snapshot.unallocated, byNuma).values()) {
          unallocated.set({ resource: row.resource, numa_node: row.numaNode }, count);
        }
        allocatableCpus.set(snapshot.allocatable.cpuIds.length);
        for (const block of snapshot.allocatable.memory) {
          allocatableMemory.inc({ memory_type: block.memoryType, numa_node: block.numaNode }, block.bytes);
        }
      }
      const heldDevice = (d: { resource: string; device: string }) => `${d.resource}\u0000${d.device}`;
      for (const { row, count } of countDistinct(snapshot.allocated, heldDevice, byNuma)) {
        allocated.set({ resource: row.resource, numa_node: row.numaNode }, count);
      }
      for (const d of snapshot.allocated) {
        const holder = { namespace: d.namespace, pod: d.pod, container: d.container };
        containerDevices.set({ ...holder, resource: d.resource, device: d.device, numa_node: d.numaNode }, 1);
        const h = health.get(deviceHealthKey(d.resource, d.device));
        if (h) containerHealth.set({ ...holder, resource: d.resource, device: d.device }, h.healthy ? 1 : 0);
      }
      const byPool = (d: { driver: string; pool: string }) => `${d.driver}\u0000${d.pool}`;
      const draDevice = (d: { driver: string; pool: string; device: string }) =>
        `${byPool(d)}\u0000${d.device}`;
      for (const { row, count } of countDistinct(snapshot.draDevices, draDevice, byPool)) {
        draAllocated.set({ driver: row.driver, pool: row.pool }, count);
      }
      for (const d of snapshot.draDevices) {
        const { namespace, pod, container, claim, driver, pool, device } = d;
        const labels = { namespace, pod, container, claim, driver, pool, device };
        containerDraDevices.set(labels, 1);
        const state = draHealth?.(driver, pool, device);
        if (state !== undefined) containerDraHealth.set(labels, draHealthValue[state]);
      }
      for (const c of snapshot.cpus) {
        containerCpus.set(
          { namespace: c.namespace, pod: c.pod, container: c.container, cpu: String(c.cpu) },
          1,
        );
      }
      for (const m of snapshot.memory) {
        const labels = {
          namespace: m.namespace,
          pod: m.pod,
          container: m.container,
          memory_type: m.memoryType,
          numa_node: m.numaNode,
        };
        containerMemory.inc(labels, m.bytes);
      }
    },
  };
}
