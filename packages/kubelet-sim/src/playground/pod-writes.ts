import { ApiError } from '../api-server/api-errors';
import type { ObjectStore } from '../api-server/object-store';
import type { ContainerDevices } from './container-devices';
import type { PodObject } from './pod-object';
import { kubeletPodStatus, type PodProgress } from './pod-status';

/** The pod annotation holding each container's DRA devices as JSON (see the README's playground section). */
export const ContainerDevicesAnnotation = 'kubelet-sim.kdp.dev/container-devices';

const isConflict = (err: unknown): boolean => err instanceof ApiError && err.status.code === 409;

/** The pod `uid` now, or undefined when it is gone (deleted, or replaced by a pod of the same name). */
export function currentPod(
  store: ObjectStore,
  namespace: string,
  name: string,
  uid: string,
): PodObject | undefined {
  try {
    const pod = store.get('pods', name, namespace) as PodObject;
    return pod.metadata.uid === uid ? pod : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes the kubelet's status of pod `uid` through the status subresource, reading it again after a 409
 * Conflict (another writer came first); does nothing once the pod is gone.
 */
export function writePodStatus(
  store: ObjectStore,
  pod: { readonly namespace: string; readonly name: string; readonly uid: string },
  progress: PodProgress,
  nowMs: number,
): void {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const current = currentPod(store, pod.namespace, pod.name, pod.uid);
    if (current === undefined) return;
    try {
      store.update(
        'pods',
        { ...current, status: kubeletPodStatus(current, progress, nowMs) },
        { namespace: pod.namespace, subresource: 'status' },
      );
      return;
    } catch (err) {
      if (!isConflict(err)) throw err;
    }
  }
}

/** Sets the {@link ContainerDevicesAnnotation} of a pod to its containers' devices. */
export function annotateContainerDevices(
  store: ObjectStore,
  pod: { readonly namespace: string; readonly name: string },
  devices: readonly ContainerDevices[],
): void {
  store.patch(
    'pods',
    pod.name,
    { metadata: { annotations: { [ContainerDevicesAnnotation]: JSON.stringify(devices) } } },
    { namespace: pod.namespace },
  );
}
