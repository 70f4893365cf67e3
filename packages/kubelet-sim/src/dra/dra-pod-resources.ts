import type { podresources } from '@kdp/api';
import { claimKey, type DraManagerState, type PodRecord } from './dra-manager-state';
import type { DraPodSnapshot } from './dra-manager-types';

/** A container's `dynamic_resources` in the pod-resources API, built as the kubelet builds them. */
function dynamicResources(
  state: DraManagerState,
  pod: PodRecord,
  claimNames: readonly string[],
): podresources.DynamicResource[] {
  const out: podresources.DynamicResource[] = [];
  for (const name of claimNames) {
    const info = state.claims.get(claimKey(pod.namespace, name));
    // The kubelet reports nothing for a container whose claim info it cannot find.
    if (info === undefined) return [];
    const claimResources: podresources.ClaimResource[] = [];
    for (const [driver, devices] of info.drivers) {
      // As the kubelet builds it: the CDI list accumulates over a driver's devices (each entry holds the
      // IDs of the devices before it too).
      const cdiDevices: podresources.CDIDevice[] = [];
      for (const device of devices) {
        for (const id of device.cdiDeviceIds) cdiDevices.push({ name: id });
        claimResources.push({
          cdiDevices: [...cdiDevices],
          driverName: driver,
          poolName: device.poolName,
          deviceName: device.deviceName,
          ...(device.shareId === undefined ? {} : { shareId: device.shareId }),
        });
      }
    }
    out.push({ claimName: info.name, claimNamespace: info.namespace, claimResources });
  }
  return out;
}

/** The pods (not being deleted) with their containers' DRA devices, for the pod-resources API. */
export function draPodSnapshots(state: DraManagerState): DraPodSnapshot[] {
  return [...state.pods.values()]
    .filter((p) => !p.deleting)
    .map((p) => ({
      name: p.name,
      namespace: p.namespace,
      containers: p.containers.map((c) => ({
        name: c.name,
        dynamicResources: dynamicResources(state, p, c.claims),
      })),
    }));
}
