import type { DraPodSnapshot } from './dra/dra-manager';
import { type Allocation, type KubeletState, podKey } from './kubelet-state';
import type { PodSnapshot } from './pod-resources-server';

/** The pods holding device-plugin devices, by container. */
function devicePluginPods(allocations: readonly Allocation[]): PodSnapshot[] {
  const pods = new Map<string, { name: string; namespace: string; containers: Map<string, Allocation[]> }>();
  for (const a of allocations) {
    const key = podKey(a.namespace, a.pod);
    const pod = pods.get(key) ?? { name: a.pod, namespace: a.namespace, containers: new Map() };
    pod.containers.set(a.container, [...(pod.containers.get(a.container) ?? []), a]);
    pods.set(key, pod);
  }
  return [...pods.values()].map((p) => ({
    name: p.name,
    namespace: p.namespace,
    containers: [...p.containers].map(([name, held]) => ({
      name,
      devices: held.map((a) => ({ resource: a.resource, deviceIds: a.deviceIds })),
    })),
  }));
}

/**
 * The pods for the pod-resources API: device-plugin devices, and for pods with DRA claims their containers'
 * `dynamic_resources`, merged with any device-plugin devices.
 */
export function podSnapshots(state: KubeletState, draPods: readonly DraPodSnapshot[]): PodSnapshot[] {
  const snapshots = devicePluginPods(state.allocations);
  for (const draPod of draPods) {
    const index = snapshots.findIndex((s) => s.name === draPod.name && s.namespace === draPod.namespace);
    const existing = snapshots[index];
    if (existing === undefined) {
      snapshots.push({
        name: draPod.name,
        namespace: draPod.namespace,
        containers: draPod.containers.map((c) => ({
          name: c.name,
          devices: [],
          dynamicResources: c.dynamicResources,
        })),
      });
      continue;
    }
    const containers = existing.containers.map((c) => ({
      ...c,
      dynamicResources: draPod.containers.find((d) => d.name === c.name)?.dynamicResources ?? [],
    }));
    for (const c of draPod.containers) {
      if (!containers.some((e) => e.name === c.name))
        containers.push({ name: c.name, devices: [], dynamicResources: c.dynamicResources });
    }
    snapshots[index] = { ...existing, containers };
  }
  return snapshots;
}
