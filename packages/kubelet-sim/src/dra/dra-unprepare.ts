import { callDraDriver } from './dra-driver-call';
import { draPluginFor } from './dra-driver-registry';
import type { DraClaim } from './dra-endpoint';
import { writeDraManagerCheckpoint } from './dra-manager-checkpoint';
import { claimKey, type ClaimInfo, type DraManagerState, type PodRecord } from './dra-manager-state';

/**
 * Unprepares a deleted pod's claims: a claim other pods still use only loses the reference; the others go to
 * one NodeUnprepareResources per driver and leave the cache once every call succeeded.
 */
export async function unprepareDraPod(state: DraManagerState, pod: PodRecord): Promise<void> {
  const batches = new Map<string, DraClaim[]>();
  const last: ClaimInfo[] = [];
  for (const info of state.claims.values()) {
    if (!info.podUids.has(pod.uid)) continue;
    // Other pods still use it: only the reference goes.
    if (info.podUids.size > 1) {
      info.podUids.delete(pod.uid);
      continue;
    }
    last.push(info);
    for (const driver of info.drivers.keys()) {
      batches.set(driver, [
        ...(batches.get(driver) ?? []),
        { namespace: info.namespace, uid: info.uid, name: info.name },
      ]);
    }
  }
  for (const [driver, batch] of batches) {
    const endpoint = draPluginFor(state, driver);
    await callDraDriver('NodeUnprepareResources', batch, () =>
      endpoint.unprepare(batch, state.options.callTimeoutMs),
    );
  }
  for (const info of last) state.claims.delete(claimKey(info.namespace, info.name));
  if (state.pods.get(pod.uid) === pod) state.pods.delete(pod.uid);
  writeDraManagerCheckpoint(state);
  state.options.emit('dra-unprepared', {
    pod: pod.name,
    namespace: pod.namespace,
    podUid: pod.uid,
    claims: last.map((i) => ({ name: i.name, namespace: i.namespace, uid: i.uid })),
  });
}
