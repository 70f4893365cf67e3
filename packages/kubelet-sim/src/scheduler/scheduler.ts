import { type Clock, systemClock } from '@kdp/base';
import type { ObjectStore } from '../api-server/object-store';
import {
  createDeviceSelectorCompiler,
  type CompileResult,
  type DeviceSelectorCompiler,
} from './cel/device-selector-compiler';
import { syncClaimController } from './claim-controller';
import type { DeviceClass, ResourceClaim, ResourceSlice } from './dra-types';
import { commitScheduled, commitUnschedulable } from './pod-binding';
import { podClaims } from './pod-claims';
import { type Node, type Pod, podIsDone } from './pod-types';
import { attemptPod } from './schedule-pod';
import { writePodEvent } from './scheduler-event';

/** Options of {@link createScheduler}. */
export interface SchedulerOptions {
  /** The API server's storage the scheduler watches and writes. */
  readonly store: ObjectStore;
  /** The CEL compiler of device selectors (default: a new one). */
  readonly compiler?: DeviceSelectorCompiler;
  /** Stamps conditions and events (default: the system clock). */
  readonly clock?: Clock;
  /**
   * Called with every scheduling decision: `scheduled`, `unschedulable` (when the pod's message changes) and
   * `error` (a pass failed unexpectedly; it is retried on the next change).
   */
  readonly onEvent?: (
    event:
      | {
          readonly type: 'scheduled';
          readonly pod: string;
          readonly node: string;
          readonly claims: readonly string[];
        }
      | {
          readonly type: 'unschedulable';
          readonly pod: string;
          readonly reason: 'Unschedulable' | 'SchedulerError';
          readonly message: string;
        }
      | { readonly type: 'error'; readonly message: string },
  ) => void;
}

/** What the scheduler reports, for tests and the playground's log. */
export type SchedulerEvent = Parameters<NonNullable<SchedulerOptions['onEvent']>>[0];

/** A running scheduler and resourceclaim controller. */
export interface Scheduler {
  /** Resolves once no pass is pending or running (for tests: no sleeps needed). */
  idle(): Promise<void>;
  /** Stops watching; pending work is dropped. */
  close(): void;
}

const watched = [
  'pods',
  'resourceclaims',
  'resourceclaimtemplates',
  'resourceslices',
  'deviceclasses',
  'nodes',
];
const podKey = (pod: Pod): string => `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name ?? ''}`;
const byAge = (a: Pod, b: Pod): number =>
  (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') ||
  podKey(a).localeCompare(podKey(b));

/**
 * Starts kube-scheduler's DRA path and the resourceclaim controller over `store`: claims from templates, the
 * allocation of each pending pod's claims on a node (CEL selectors, see the allocator), the reservation and the
 * binding, PodScheduled=False with the scheduler's message and a FailedScheduling event when nothing fits, and
 * the release of claims whose pods are gone. Passes run after changes to pods, claims, templates, slices,
 * classes or nodes, coalesced; nothing runs while nothing changes.
 */
export function createScheduler(options: SchedulerOptions): Scheduler {
  const { store } = options;
  const clock = options.clock ?? systemClock;
  const compiler = options.compiler ?? createDeviceSelectorCompiler();
  const compiled = new Map<string, CompileResult>();
  const compile = (expression: string): CompileResult => {
    let result = compiled.get(expression);
    if (result === undefined) {
      if (compiled.size > 1000) compiled.clear();
      result = compiler.compile(expression);
      compiled.set(expression, result);
    }
    return result;
  };
  const lastMessage = new Map<string, string>();
  const emit = (event: SchedulerEvent): void => options.onEvent?.(event);
  let pending = false;
  let writing = false;
  let closed = false;
  let waiters: (() => void)[] = [];

  const schedulePod = (pod: Pod): boolean => {
    const classes = new Map(
      (store.list('deviceclasses').items as unknown as DeviceClass[]).map((c) => [c.metadata.name ?? '', c]),
    );
    const classOf = (name: string): DeviceClass | undefined => classes.get(name);
    const attempt = attemptPod({
      pod,
      claims: podClaims(store, pod, classOf),
      nodes: store.list('nodes').items as unknown as Node[],
      allClaims: store.list('resourceclaims').items as unknown as ResourceClaim[],
      slices: store.list('resourceslices').items as unknown as ResourceSlice[],
      classOf,
      compile,
    });
    if (attempt.kind === 'scheduled') {
      commitScheduled(store, clock, pod, attempt);
      lastMessage.delete(pod.metadata.uid ?? '');
      emit({
        type: 'scheduled',
        pod: podKey(pod),
        node: attempt.node,
        claims: attempt.claims.map((c) => c.claim.metadata.name ?? ''),
      });
      return false;
    }
    const changed = commitUnschedulable(store, clock, pod, attempt);
    const reason = attempt.kind === 'error' ? 'SchedulerError' : 'Unschedulable';
    if (changed || lastMessage.get(pod.metadata.uid ?? '') !== attempt.message) {
      lastMessage.set(pod.metadata.uid ?? '', attempt.message);
      writePodEvent(store, clock, pod, {
        type: 'Warning',
        reason: 'FailedScheduling',
        message: attempt.message,
      });
      emit({ type: 'unschedulable', pod: podKey(pod), reason, message: attempt.message });
    }
    return attempt.kind === 'unschedulable' && attempt.deallocate !== undefined;
  };

  const pass = (): void => {
    syncClaimController(store);
    const pods = (store.list('pods').items as unknown as Pod[])
      .filter(
        (p) =>
          (p.spec.nodeName ?? '') === '' &&
          (p.spec.schedulerName ?? 'default-scheduler') === 'default-scheduler' &&
          !podIsDone(p) &&
          p.metadata.deletionTimestamp === undefined,
      )
      .sort(byAge);
    let again = false;
    for (const { metadata } of pods) {
      const pod = store.get('pods', metadata.name ?? '', metadata.namespace) as unknown as Pod;
      if ((pod.spec.nodeName ?? '') === '') again = schedulePod(pod) || again;
    }
    if (again) request();
  };

  const run = (): void => {
    pending = false;
    if (closed) return;
    writing = true;
    try {
      pass();
    } catch (err) {
      emit({ type: 'error', message: (err as Error).message });
      if ((err as { code?: number }).code === 409) request();
    } finally {
      writing = false;
    }
    if (!pending) {
      const done = waiters;
      waiters = [];
      for (const resolve of done) resolve();
    }
  };

  function request(): void {
    if (pending || closed) return;
    pending = true;
    setImmediate(run);
  }

  const from = String(store.resourceVersion());
  const stops = watched.map((resource) =>
    store.watch(resource, { resourceVersion: from }, () => {
      if (!writing) request();
    }),
  );
  request();

  return {
    idle: () => (pending ? new Promise((resolve) => waiters.push(resolve)) : Promise.resolve()),
    close() {
      closed = true;
      pending = false;
      for (const stop of stops) stop();
      const done = waiters;
      waiters = [];
      for (const resolve of done) resolve();
    },
  };
}
