import {
  type DraCheckpointClaim,
  type DraCheckpointDevice,
  type DraCheckpointPod,
  readDraCheckpoint,
  writeDraCheckpoint,
} from './dra-checkpoint';
import { claimKey, type ClaimInfo, type DraManagerState } from './dra-manager-state';
import type { DraClaimRef } from './dra-manager-types';

const claimEntry = (info: ClaimInfo): DraCheckpointClaim => ({
  ClaimUID: info.uid,
  ClaimName: info.name,
  Namespace: info.namespace,
  PodUIDs: [...info.podUids],
  DriverState: Object.fromEntries(
    [...info.drivers].map(([driver, devices]) => [
      driver,
      {
        Devices: devices.map((d): DraCheckpointDevice => ({
          PoolName: d.poolName,
          DeviceName: d.deviceName,
          RequestNames: [...d.requestNames],
          CDIDeviceIDs: [...d.cdiDeviceIds],
          ...(d.shareId === undefined ? {} : { ShareID: d.shareId }),
        })),
      },
    ]),
  ),
});

/** Writes the claim cache and the pods (not those being deleted) to the DRA checkpoint; nothing while stopped. */
export function writeDraManagerCheckpoint(state: DraManagerState): void {
  if (state.stopped) return;
  const podEntries: DraCheckpointPod[] = [...state.pods.values()]
    .filter((p) => !p.deleting)
    .map((p) => ({
      name: p.name,
      namespace: p.namespace,
      uid: p.uid,
      containers: p.containers,
      claims: p.claims,
    }));
  try {
    writeDraCheckpoint(state.options.checkpointPath, {
      Claims: [...state.claims.values()].map(claimEntry),
      Pods: podEntries,
    });
  } catch {
    // The directory went away (the simulator is closing): the next change writes it again.
  }
}

/** Loads the claims and pods of the DRA checkpoint into `state` (whose cache is empty). */
export function restoreDraManagerCheckpoint(state: DraManagerState): void {
  const data = readDraCheckpoint(state.options.checkpointPath);
  for (const entry of data?.Claims ?? []) {
    // Claims come back from the checkpoint not prepared: every pod's prepare is called again on its sync.
    state.claims.set(claimKey(entry.Namespace, entry.ClaimName), {
      uid: entry.ClaimUID,
      name: entry.ClaimName,
      namespace: entry.Namespace,
      podUids: new Set(entry.PodUIDs),
      drivers: new Map(
        Object.entries(entry.DriverState).map(([driver, driverState]) => [
          driver,
          driverState.Devices.map((d) => ({
            driver,
            requestNames: d.RequestNames,
            poolName: d.PoolName,
            deviceName: d.DeviceName,
            cdiDeviceIds: d.CDIDeviceIDs,
            ...(d.ShareID === undefined ? {} : { shareId: d.ShareID }),
          })),
        ]),
      ),
      prepared: false,
    });
  }
  for (const entry of data?.Pods ?? []) {
    state.pods.set(entry.uid, { ...entry, claims: entry.claims as DraClaimRef[] });
  }
}
