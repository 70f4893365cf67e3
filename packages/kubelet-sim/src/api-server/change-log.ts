import type { KubeObject } from './resource-types';

/** One stored change, numbered by the global resourceVersion it made. */
export interface StoredChange {
  readonly rv: number;
  readonly resource: string;
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: KubeObject;
  readonly old?: KubeObject;
}

/** The store's global resourceVersion and its recent changes, delivered to every subscriber. */
export interface ChangeLog {
  /** The current global resourceVersion. */
  current(): number;
  /** Bumps the resourceVersion and returns it, for the change about to be recorded. */
  next(): number;
  record(change: StoredChange): void;
  /** The oldest kept change's resourceVersion, or `undefined` when none is kept. */
  oldest(): number | undefined;
  /** The kept changes after `rv`, oldest first. */
  since(rv: number): StoredChange[];
  /** Calls `listener` with every later change; returns the function that stops it. */
  subscribe(listener: (change: StoredChange) => void): () => void;
}

/** Creates an empty change log keeping the latest `limit` changes. */
export function createChangeLog(options: { limit: number }): ChangeLog {
  let rv = 0;
  const history: StoredChange[] = [];
  const listeners = new Set<(change: StoredChange) => void>();
  return {
    current: () => rv,
    next: () => (rv += 1),
    record: (change) => {
      history.push(change);
      if (history.length > options.limit) history.splice(0, history.length - options.limit);
      for (const listener of listeners) listener(change);
    },
    oldest: () => history[0]?.rv,
    since: (from) => history.filter((change) => change.rv > from),
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
