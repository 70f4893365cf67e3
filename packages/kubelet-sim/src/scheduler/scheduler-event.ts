import type { Clock } from '@kdp/base';
import type { KubeObject, ObjectStore } from '../api-server/object-store';
import type { Pod } from './pod-types';

let sequence = 0;

/** RFC 3339 seconds, as Kubernetes stamps times. */
export const timestamp = (clock: Clock): string =>
  new Date(Math.floor(clock.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** Writes a core/v1 Event about a pod from `default-scheduler` (as `kubectl describe pod` lists it). */
export function writePodEvent(
  store: ObjectStore,
  clock: Clock,
  pod: Pod,
  event: {
    readonly type: 'Normal' | 'Warning';
    readonly reason: string;
    readonly message: string;
    readonly action: string;
  },
): void {
  const namespace = pod.metadata.namespace ?? 'default';
  const now = timestamp(clock);
  const name = `${pod.metadata.name ?? ''}.${(BigInt(clock.now()) * 1_000_000n + BigInt(sequence++ % 1_000_000)).toString(16)}`;
  const object = {
    metadata: { name, namespace },
    involvedObject: {
      kind: 'Pod',
      apiVersion: 'v1',
      namespace,
      name: pod.metadata.name,
      uid: pod.metadata.uid,
    },
    type: event.type,
    reason: event.reason,
    message: event.message,
    action: event.action,
    source: { component: 'default-scheduler' },
    reportingComponent: 'default-scheduler',
    reportingInstance: 'default-scheduler',
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
  };
  store.create('events', object as unknown as KubeObject, namespace);
}
