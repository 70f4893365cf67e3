import { conflict, type ApiError } from '../api-server/api-errors';

/** Faults the playground's API server can be told to inject, for chaos tests. */
export interface ApiFaults {
  /** From now on refuse every write (POST, PUT, PATCH, DELETE) with 409 Conflict, until {@link ApiFaults.endConflicts}. */
  startConflicts(): void;
  /** Ends a storm of {@link ApiFaults.startConflicts}. */
  endConflicts(): void;
  /** How many writes were refused so far. */
  readonly refused: number;
  /** Resolves true once more than `count` writes were refused, false after `timeoutMs`. */
  refusedMoreThan(count: number, timeoutMs: number): Promise<boolean>;
  /** The API server's `refuse` hook. */
  refuse(request: { readonly method: string; readonly path: string }): ApiError | undefined;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Creates the fault switch of {@link ApiFaults} (off). */
export function createApiFaults(): ApiFaults {
  let conflicts = false;
  let refused = 0;
  const waiters = new Set<() => void>();
  return {
    startConflicts: () => void (conflicts = true),
    endConflicts: () => void (conflicts = false),
    get refused() {
      return refused;
    },
    refusedMoreThan: (count, timeoutMs) =>
      new Promise((resolve) => {
        const check = (): void => {
          if (refused <= count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(true);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          resolve(refused > count);
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    refuse: ({ method, path }) => {
      if (!conflicts || !WRITES.has(method)) return undefined;
      refused += 1;
      for (const waiter of [...waiters]) waiter();
      return conflict('', '', path);
    },
  };
}
