import type { Clock } from '@kdp/base';
import type { ObjectStore } from '../api-server/object-store';
import { recordEvent } from '../api-server/record-event';
import type { Pod } from './pod-types';

/** RFC 3339 seconds, as Kubernetes stamps times. */
export const timestamp = (clock: Clock): string =>
  new Date(Math.floor(clock.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** Records an Event about a pod from `default-scheduler` (as `kubectl describe pod` lists it). */
export function writePodEvent(
  store: ObjectStore,
  clock: Clock,
  pod: Pod,
  event: { readonly type: 'Normal' | 'Warning'; readonly reason: string; readonly message: string },
): void {
  recordEvent(
    store,
    {
      involvedObject: {
        kind: 'Pod',
        apiVersion: 'v1',
        name: pod.metadata.name ?? '',
        namespace: pod.metadata.namespace ?? 'default',
        ...(pod.metadata.uid === undefined ? {} : { uid: pod.metadata.uid }),
      },
      type: event.type,
      reason: event.reason,
      message: event.message,
      source: { component: 'default-scheduler' },
    },
    { clock },
  );
}
