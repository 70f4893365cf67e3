import { type Clock, systemClock, type TimerHandle } from '@kdp/base';
import type { ObjectStore } from '../api-server/object-store';
import { recordEvent } from '../api-server/record-event';
import { toleratesTaint } from '../scheduler/allocator/device-taints';
import type { DeviceTaint, DeviceToleration, ResourceClaim, ResourceSlice } from '../scheduler/dra-types';
import { type Pod, podIsDone } from '../scheduler/pod-types';
import { timestamp } from '../scheduler/scheduler-event';

/** Options of {@link createDeviceTaintEviction}. */
export interface DeviceTaintEvictionOptions {
  /** The API server's storage the controller watches and writes. */
  readonly store: ObjectStore;
  /** Reads `timeAdded` against `tolerationSeconds` and schedules the evictions due later (default: the system clock). */
  readonly clock?: Clock;
  /** Called with each pod evicted (`namespace/name`) and the taint that evicted it. */
  readonly onEvict?: (pod: string, taint: string) => void;
}

/** A running device taint eviction controller. */
export interface DeviceTaintEviction {
  /** Stops watching; a pending eviction timer is cancelled. */
  close(): void;
}

/** The DisruptionTarget reason upstream's device taint eviction controller writes. */
export const DEVICE_TAINT_EVICTION_REASON = 'DeletionByDeviceTaintManager';

const watched = ['pods', 'resourceclaims', 'resourceslices'];
const deviceKey = (driver: string, pool: string, device: string): string =>
  JSON.stringify([driver, pool, device]);
const taintText = (taint: DeviceTaint): string =>
  `${taint.key}${taint.value ? `=${taint.value}` : ''}:${taint.effect}`;

/** Every device's NoExecute taints, by driver, pool and device name (only the pool's newest generation). */
function noExecuteTaints(slices: readonly ResourceSlice[]): Map<string, DeviceTaint[]> {
  const generation = new Map<string, number>();
  for (const slice of slices) {
    const pool = JSON.stringify([slice.spec.driver, slice.spec.pool.name]);
    generation.set(pool, Math.max(generation.get(pool) ?? 0, slice.spec.pool.generation));
  }
  const taints = new Map<string, DeviceTaint[]>();
  for (const slice of slices) {
    const { driver, pool } = slice.spec;
    if (generation.get(JSON.stringify([driver, pool.name])) !== pool.generation) continue;
    for (const device of slice.spec.devices ?? []) {
      const noExecute = (device.taints ?? []).filter((t) => t.effect === 'NoExecute');
      if (noExecute.length > 0) taints.set(deviceKey(driver, pool.name, device.name), noExecute);
    }
  }
  return taints;
}

/**
 * kube-controller-manager's device taint eviction controller (KEP 5055) over `store`: a pod using an allocated
 * claim whose device has a `NoExecute` taint that the allocation result's tolerations do not tolerate is evicted —
 * a `DisruptionTarget` condition, a `Warning` event, then deleted; a toleration with `tolerationSeconds` delays that
 * until `timeAdded` plus those seconds (read on `clock`, a timer set for the earliest). Passes run after changes
 * to pods, claims or slices, coalesced.
 */
export function createDeviceTaintEviction(options: DeviceTaintEvictionOptions): DeviceTaintEviction {
  const { store } = options;
  const clock = options.clock ?? systemClock;
  const firstSeen = new Map<string, number>();
  let timer: TimerHandle | undefined;
  let pending = false;
  let closed = false;

  const evict = (pod: Pod, taint: DeviceTaint, device: string): void => {
    const namespace = pod.metadata.namespace ?? 'default';
    const name = pod.metadata.name ?? '';
    const message = `Device Taint manager: deleting due to NoExecute taint ${taintText(taint)} of device ${device}`;
    const conditions = (pod.status?.conditions ?? []).filter((c) => c.type !== 'DisruptionTarget');
    store.patch(
      'pods',
      name,
      {
        status: {
          conditions: [
            ...conditions,
            {
              type: 'DisruptionTarget',
              status: 'True',
              reason: DEVICE_TAINT_EVICTION_REASON,
              message,
              lastTransitionTime: timestamp(clock),
            },
          ],
        },
      },
      { namespace, subresource: 'status' },
    );
    recordEvent(
      store,
      {
        involvedObject: {
          kind: 'Pod',
          apiVersion: 'v1',
          name,
          namespace,
          ...(pod.metadata.uid === undefined ? {} : { uid: pod.metadata.uid }),
        },
        type: 'Warning',
        reason: 'DeviceTaintManagerEviction',
        message,
        source: { component: 'device-taint-eviction-controller' },
      },
      { clock },
    );
    store.delete('pods', name, { namespace, preconditions: { uid: pod.metadata.uid ?? '' } });
    options.onEvict?.(`${namespace}/${name}`, taintText(taint));
  };

  /** When the taint's toleration runs out for this result: now, later, or never (undefined). */
  const evictAt = (
    taint: DeviceTaint & { readonly timeAdded?: string },
    tolerations: readonly DeviceToleration[],
    seenKey: string,
  ): number | undefined => {
    const seconds = tolerations.filter((t) => toleratesTaint(t, taint)).map((t) => t.tolerationSeconds);
    if (seconds.length === 0) return clock.now();
    // A toleration without tolerationSeconds tolerates the taint for ever.
    if (seconds.some((s) => s === undefined)) return undefined;
    const since = Date.parse(taint.timeAdded ?? '') || (firstSeen.get(seenKey) ?? clock.now());
    if (!firstSeen.has(seenKey)) firstSeen.set(seenKey, since);
    return since + Math.max(0, Math.min(...seconds.map(Number))) * 1000;
  };

  const pass = (): void => {
    const taints = noExecuteTaints(store.list('resourceslices').items as unknown as ResourceSlice[]);
    const pods = new Map(
      (store.list('pods').items as unknown as Pod[]).map((p) => [
        `${p.metadata.namespace ?? 'default'}/${p.metadata.name ?? ''}`,
        p,
      ]),
    );
    const seen = new Set<string>();
    let next = Infinity;
    for (const claim of store.list('resourceclaims').items as unknown as ResourceClaim[]) {
      const namespace = claim.metadata.namespace ?? 'default';
      for (const result of claim.status?.allocation?.devices.results ?? []) {
        const device = deviceKey(result.driver, result.pool, result.device);
        for (const taint of taints.get(device) ?? []) {
          for (const ref of claim.status?.reservedFor ?? []) {
            if (ref.resource !== 'pods' || (ref.apiGroup ?? '') !== '') continue;
            const pod = pods.get(`${namespace}/${ref.name}`);
            if (pod === undefined || pod.metadata.uid !== ref.uid || podIsDone(pod)) continue;
            const seenKey = JSON.stringify([device, taintText(taint), claim.metadata.uid]);
            seen.add(seenKey);
            const at = evictAt(taint, result.tolerations ?? [], seenKey);
            if (at === undefined) continue;
            if (at > clock.now()) next = Math.min(next, at);
            else {
              evict(pod, taint, `${result.driver}/${result.pool}/${result.device}`);
              pods.delete(`${namespace}/${ref.name}`);
            }
          }
        }
      }
    }
    for (const key of firstSeen.keys()) if (!seen.has(key)) firstSeen.delete(key);
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = next === Infinity ? undefined : clock.setTimeout(request, next - clock.now());
  };

  const run = (): void => {
    pending = false;
    if (closed) return;
    try {
      pass();
    } catch {
      // A write lost a race (the pod went meanwhile): tried again shortly, or at the next change.
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = clock.setTimeout(request, 1000);
    }
  };

  function request(): void {
    if (pending || closed) return;
    pending = true;
    setImmediate(run);
  }

  const from = String(store.resourceVersion());
  const stops = watched.map((resource) => store.watch(resource, { resourceVersion: from }, request));
  request();
  return {
    close() {
      closed = true;
      if (timer !== undefined) clock.clearTimeout(timer);
      for (const stop of stops) stop();
    },
  };
}
