import { type ApiError, badRequest } from './api-errors';
import type { ChangeLog, StoredChange } from './change-log';
import { type ListOptions, listMatcher } from './list-matcher';
import type { KubeObject, ResourceType } from './resource-types';

/** A change to an object, as a watch stream carries it. */
export interface WatchEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'ERROR' | 'BOOKMARK';
  readonly object: KubeObject | ApiError['status'];
}

/** Options of {@link watchObjects}. */
export interface WatchObjectsOptions {
  readonly type: ResourceType;
  readonly log: ChangeLog;
  /** The selected objects now, for a watch from "0" (or no version). */
  readonly list: () => KubeObject[];
  /** Adds `apiVersion` and `kind` to a stored object, as every read does. */
  readonly withType: (object: KubeObject) => KubeObject;
  readonly options: ListOptions & { resourceVersion?: string };
  readonly onEvent: (e: WatchEvent) => void;
}

const expired = (since: number, oldest: number): WatchEvent => ({
  type: 'ERROR',
  object: {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `too old resource version: ${since} (${oldest - 1})`,
    reason: 'Expired',
    code: 410,
  },
});

/**
 * Streams the changes of `type` after `resourceVersion` (absent or "0": every current object as ADDED first),
 * as seen through the selectors: an object that stops matching is DELETED, one that starts matching ADDED.
 * A version older than the kept history is a 410 Expired. Returns the function that stops the watch.
 */
export function watchObjects(watch: WatchObjectsOptions): () => void {
  const { type, log, onEvent, withType, options } = watch;
  const matches = listMatcher(type, options);
  const deliver = (change: StoredChange): void => {
    if (change.resource !== type.plural) return;
    const now = change.type !== 'DELETED' && matches(change.object);
    const before = change.old !== undefined && matches(change.old);
    if (change.type === 'ADDED' && now) onEvent({ type: 'ADDED', object: withType(change.object) });
    else if (change.type === 'MODIFIED' && now)
      onEvent({ type: before ? 'MODIFIED' : 'ADDED', object: withType(change.object) });
    else if (change.type === 'MODIFIED' && before)
      onEvent({ type: 'DELETED', object: withType(change.object) });
    else if (change.type === 'DELETED' && before)
      onEvent({ type: 'DELETED', object: withType(change.object) });
  };
  const from = options.resourceVersion;
  if (from === undefined || from === '' || from === '0') {
    for (const object of watch.list()) onEvent({ type: 'ADDED', object });
  } else {
    const since = Number(from);
    if (!Number.isInteger(since) || since < 0)
      throw badRequest(`invalid resource version: ${JSON.stringify(from)}`);
    const oldest = log.oldest() ?? log.current() + 1;
    if (since < oldest - 1 && since < log.current()) {
      onEvent(expired(since, oldest));
      return () => undefined;
    }
    for (const change of log.since(since)) deliver(change);
  }
  return log.subscribe(deliver);
}
