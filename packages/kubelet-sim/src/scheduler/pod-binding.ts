import type { Clock } from '@kdp/base';
import type { KubeObject, ObjectStore } from '../api-server/object-store';
import type { ResourceClaim } from './dra-types';
import type { Pod, PodCondition } from './pod-types';
import type { Attempt } from './schedule-pod';
import { timestamp, writePodEvent } from './scheduler-event';

const asObject = <T>(o: T): KubeObject => o as unknown as KubeObject;

/** The pod's conditions with PodScheduled set; undefined when it already reads so. */
function withScheduledCondition(
  pod: Pod,
  clock: Clock,
  next: Omit<PodCondition, 'type' | 'lastTransitionTime'>,
): PodCondition[] | undefined {
  const conditions = [...(pod.status?.conditions ?? [])];
  const index = conditions.findIndex((c) => c.type === 'PodScheduled');
  const old = conditions[index];
  if (
    old !== undefined &&
    old.status === next.status &&
    old.reason === next.reason &&
    old.message === next.message
  )
    return undefined;
  const transition =
    old !== undefined && old.status === next.status ? old.lastTransitionTime : timestamp(clock);
  const condition: PodCondition = {
    type: 'PodScheduled',
    ...next,
    lastProbeTime: null,
    ...(transition === undefined ? {} : { lastTransitionTime: transition }),
  };
  if (index === -1) conditions.push(condition);
  else conditions[index] = condition;
  return conditions;
}

const setConditions = (store: ObjectStore, pod: Pod, conditions: PodCondition[]): void => {
  store.update('pods', asObject({ ...pod, status: { ...(pod.status ?? {}), conditions } }), {
    namespace: pod.metadata.namespace ?? 'default',
    subresource: 'status',
  });
};

/** Writes each claim's allocation and reservation for the pod, then binds the pod (PreBind, then Bind). */
export function commitScheduled(
  store: ObjectStore,
  clock: Clock,
  pod: Pod,
  attempt: Extract<Attempt, { kind: 'scheduled' }>,
): void {
  const namespace = pod.metadata.namespace ?? 'default';
  const consumer = { resource: 'pods', name: pod.metadata.name ?? '', uid: pod.metadata.uid ?? '' };
  for (const { claim, allocation } of attempt.claims) {
    const reserved = claim.status?.reservedFor ?? [];
    if (allocation === undefined && reserved.some((r) => r.uid === consumer.uid)) continue;
    const status = {
      ...(claim.status ?? {}),
      ...(allocation === undefined ? {} : { allocation }),
      reservedFor: [...reserved.filter((r) => r.uid !== consumer.uid), consumer],
    };
    store.update('resourceclaims', asObject({ ...claim, status }), { namespace, subresource: 'status' });
  }
  const bound = store.update('pods', asObject({ ...pod, spec: { ...pod.spec, nodeName: attempt.node } }), {
    namespace,
  }) as unknown as Pod;
  const conditions = withScheduledCondition(bound, clock, { status: 'True' });
  if (conditions !== undefined) setConditions(store, bound, conditions);
  writePodEvent(store, clock, bound, {
    type: 'Normal',
    reason: 'Scheduled',
    message: `Successfully assigned ${namespace}/${pod.metadata.name ?? ''} to ${attempt.node}`,
  });
}

/**
 * Leaves the pod Pending with PodScheduled=False (reason Unschedulable, or SchedulerError for an error) and
 * the message; deallocates the claim PostFilter chose. Returns whether the condition changed.
 */
export function commitUnschedulable(
  store: ObjectStore,
  clock: Clock,
  pod: Pod,
  attempt: Exclude<Attempt, { kind: 'scheduled' }>,
): boolean {
  if (attempt.kind === 'unschedulable' && attempt.deallocate !== undefined) {
    const claim: ResourceClaim = attempt.deallocate;
    const { allocation: _gone, reservedFor: _none, devices: _reported, ...status } = claim.status ?? {};
    store.update('resourceclaims', asObject({ ...claim, status }), {
      namespace: claim.metadata.namespace ?? 'default',
      subresource: 'status',
    });
  }
  const reason = attempt.kind === 'error' ? 'SchedulerError' : 'Unschedulable';
  const conditions = withScheduledCondition(pod, clock, {
    status: 'False',
    reason,
    message: attempt.message,
  });
  if (conditions === undefined) return false;
  setConditions(store, pod, conditions);
  return true;
}
