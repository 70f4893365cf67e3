import type { PreparedClaim } from './dra-events';
import { type DraManagerState, type PodRecord, runSerialized } from './dra-manager-state';
import { prepareDraPod } from './dra-prepare';
import { unprepareDraPod } from './dra-unprepare';

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The pause before the next sync of a pod whose sync failed: `podSyncRetryMs`, doubled per failure up to `podSyncMaxRetryMs`. */
function retryDelay(state: DraManagerState, pod: PodRecord): number {
  const { podSyncRetryMs, podSyncMaxRetryMs } = state.options;
  const failures = pod.failures ?? 0;
  pod.failures = failures + 1;
  return Math.min(podSyncRetryMs * 2 ** failures, Math.max(podSyncRetryMs, podSyncMaxRetryMs ?? 0));
}

/** Prepares the pod's claims, one sync at a time; a failure is retried later, as the kubelet's next sync does. */
export function syncDraPod(state: DraManagerState, pod: PodRecord): Promise<PreparedClaim[]> {
  const started = state.generation;
  if (pod.retry !== undefined) clearTimeout(pod.retry);
  delete pod.retry;
  return runSerialized(state, () => prepareDraPod(state, pod)).then(
    (prepared) => {
      pod.failures = 0;
      return prepared;
    },
    (err: unknown) => {
      const message = `prepare dynamic resources: ${messageOf(err)}`;
      if (started === state.generation && state.pods.get(pod.uid) === pod && !pod.deleting) {
        state.options.emit('dra-prepare-failed', {
          pod: pod.name,
          namespace: pod.namespace,
          podUid: pod.uid,
          message,
        });
        // The pod is synced again later: the kubelet retries a failed prepare on the next sync, backing off.
        pod.retry = setTimeout(
          () => void syncDraPod(state, pod).catch(() => undefined),
          retryDelay(state, pod),
        );
        pod.retry.unref();
      }
      throw new Error(message, { cause: err });
    },
  );
}

/** Unprepares a deleted pod's claims, one sync at a time; a failure is retried until it works. */
export function deleteDraPod(state: DraManagerState, pod: PodRecord): Promise<void> {
  const started = state.generation;
  pod.deleting = true;
  if (pod.retry !== undefined) clearTimeout(pod.retry);
  delete pod.retry;
  return runSerialized(state, () => unprepareDraPod(state, pod)).catch((err: unknown) => {
    if (started === state.generation && state.pods.get(pod.uid) === pod) {
      // Cleanup is retried until it works, as the kubelet's housekeeping does.
      pod.retry = setTimeout(
        () => void deleteDraPod(state, pod).catch(() => undefined),
        retryDelay(state, pod),
      );
      pod.retry.unref();
    }
    throw new Error(`unprepare dynamic resources: ${messageOf(err)}`, { cause: err });
  });
}
