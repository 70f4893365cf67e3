import { systemClock, type Clock } from '@kdp/base';
import { ApiError } from './api-errors';
import type { KubeObject, ObjectStore } from './object-store';

/** What {@link recordEvent} records. */
export interface EventRecord {
  /** The object the event is about; a cluster-scoped one (no namespace) gets its events in `default`. */
  readonly involvedObject: {
    readonly kind: string;
    readonly name: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly apiVersion?: string;
  };
  /** A short CamelCase reason (`FailedScheduling`, `Scheduled`). */
  readonly reason: string;
  /** A human-readable sentence; an Event with the same one (and the same rest) is counted, not repeated. */
  readonly message: string;
  /** `Warning` for what needs attention, `Normal` otherwise. */
  readonly type: 'Normal' | 'Warning';
  /** Who reports it: `component` (`default-scheduler`, `kubelet`) and `host` (a node name). */
  readonly source?: { readonly component?: string; readonly host?: string };
}

const timestamp = (ms: number): string =>
  new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

const sameSource = (a: unknown, b: EventRecord['source']): boolean => {
  const s = (a ?? {}) as { component?: string; host?: string };
  return (s.component ?? '') === (b?.component ?? '') && (s.host ?? '') === (b?.host ?? '');
};

/**
 * Records a core/v1 Event in `store`, as client-go's event recorder does: a new Event named
 * `<object>.<hex nanoseconds>` with `count: 1`, or, when an Event with the same object, reason, message, type
 * and source exists, that one with `count` bumped and `lastTimestamp` moved. Returns the stored Event.
 */
export function recordEvent(
  store: ObjectStore,
  event: EventRecord,
  options: { clock?: Clock } = {},
): KubeObject {
  const now = (options.clock ?? systemClock).now();
  const { involvedObject: ref } = event;
  const namespace = ref.namespace ?? 'default';
  const selector = [
    `involvedObject.kind=${ref.kind}`,
    `involvedObject.name=${ref.name}`,
    `involvedObject.namespace=${ref.namespace ?? ''}`,
    `involvedObject.uid=${ref.uid ?? ''}`,
    `reason=${event.reason}`,
    `type=${event.type}`,
  ].join(',');
  const repeat = store
    .list('events', { namespace, fieldSelector: selector })
    .items.find((e) => e['message'] === event.message && sameSource(e['source'], event.source));
  if (repeat !== undefined) {
    return store.update(
      'events',
      { ...repeat, count: Number(repeat['count'] ?? 1) + 1, lastTimestamp: timestamp(now) },
      { namespace },
    );
  }
  const body = {
    involvedObject: { ...ref },
    reason: event.reason,
    message: event.message,
    type: event.type,
    source: { ...event.source },
    count: 1,
    firstTimestamp: timestamp(now),
    lastTimestamp: timestamp(now),
  };
  // Upstream names events by nanoseconds; two in the same millisecond take the next free nanosecond.
  for (let nanos = BigInt(Math.floor(now)) * 1_000_000n; ; nanos += 1n) {
    try {
      return store.create(
        'events',
        { metadata: { name: `${ref.name}.${nanos.toString(16)}`, namespace }, ...body },
        namespace,
      );
    } catch (err) {
      if (!(err instanceof ApiError && err.status.reason === 'AlreadyExists')) throw err;
    }
  }
}
