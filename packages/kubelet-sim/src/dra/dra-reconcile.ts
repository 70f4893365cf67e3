import { type DraManagerState, type PodRecord } from './dra-manager-state';
import { deleteDraPod } from './dra-pod-sync';

/**
 * The pods the DRA manager holds claims for that the kubelet no longer runs, as the kubelet's reconcile loop
 * finds them: each pod record not in `active`, and each pod a cached claim still names without a record (its
 * namespace taken from the claim). Pods being deleted already are left to that deletion.
 */
export function inactiveDraPods(state: DraManagerState, active: ReadonlySet<string>): PodRecord[] {
  const inactive = new Map<string, PodRecord>();
  for (const pod of state.pods.values())
    if (!active.has(pod.uid) && pod.deleting !== true) inactive.set(pod.uid, pod);
  for (const info of state.claims.values())
    for (const uid of info.podUids)
      if (!active.has(uid) && !state.pods.has(uid) && !inactive.has(uid))
        inactive.set(uid, { name: uid, namespace: info.namespace, uid, containers: [], claims: [] });
  return [...inactive.values()];
}

/**
 * Unprepares the claims of every inactive pod (`activePods` of the options; nothing while it is unknown), through
 * the pod deletion, which retries until it works. Returns the pods it began to delete.
 */
export function reconcileDraPods(state: DraManagerState): PodRecord[] {
  const active = state.options.activePods?.();
  if (active === undefined || state.stopped) return [];
  const inactive = inactiveDraPods(state, active);
  for (const pod of inactive) {
    // A claim-only pod gets a record, so that the deletion's retries and the checkpoint see it.
    if (!state.pods.has(pod.uid)) state.pods.set(pod.uid, pod);
    void deleteDraPod(state, pod).catch(() => undefined);
  }
  return inactive;
}
