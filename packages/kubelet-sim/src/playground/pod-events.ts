import { randomBytes } from 'node:crypto';
import type { ObjectStore } from '../api-server/object-store';
import { kubeTime } from './pod-status';
import type { PodObject } from './pod-object';

/**
 * Records a core/v1 Event about `pod` from the kubelet of `node`, as client-go's recorder does: an event with
 * the same reason and message as an earlier one only raises its `count` and `lastTimestamp`.
 */
export function recordPodEvent(
  store: ObjectStore,
  pod: PodObject,
  event: { type: 'Normal' | 'Warning'; reason: string; message: string; node: string; nowMs: number },
): void {
  const namespace = pod.metadata.namespace ?? 'default';
  const now = kubeTime(event.nowMs);
  const same = store
    .list('events', {
      namespace,
      fieldSelector: `involvedObject.uid=${pod.metadata.uid ?? ''},reason=${event.reason}`,
    })
    .items.find((e) => e['message'] === event.message);
  if (same !== undefined) {
    store.patch(
      'events',
      same.metadata.name ?? '',
      { count: ((same['count'] as number | undefined) ?? 1) + 1, lastTimestamp: now },
      { namespace },
    );
    return;
  }
  store.create(
    'events',
    {
      metadata: { name: `${pod.metadata.name ?? 'pod'}.${randomBytes(8).toString('hex')}`, namespace },
      involvedObject: {
        apiVersion: 'v1',
        kind: 'Pod',
        name: pod.metadata.name,
        namespace,
        uid: pod.metadata.uid,
        resourceVersion: pod.metadata.resourceVersion,
      },
      type: event.type,
      reason: event.reason,
      message: event.message,
      source: { component: 'kubelet', host: event.node },
      reportingComponent: 'kubelet',
      reportingInstance: event.node,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    },
    namespace,
  );
}
