import { now, type PluginLogEntry } from './plugin-processes';

/** A plugin log entry with the time the demo read it (epoch ms). */
export interface TimedLogEntry extends PluginLogEntry {
  readonly at: number;
}

/** The plugins' JSON log lines as they come, for steps that wait for one. */
export interface PluginLogs {
  /** Feeds one entry (from the processes' `onLog`). */
  add(entry: PluginLogEntry): void;
  /** The first entry from now on that matches; rejects after `timeoutMs`. */
  waitFor(match: (entry: PluginLogEntry) => boolean, timeoutMs: number): Promise<TimedLogEntry>;
}

export function createPluginLogs(): PluginLogs {
  const waiters = new Set<(entry: TimedLogEntry) => void>();
  return {
    add: (entry) => {
      const timed = { ...entry, at: now() };
      for (const waiter of [...waiters]) waiter(timed);
    },
    waitFor: (match, timeoutMs) =>
      new Promise((resolve, reject) => {
        const waiter = (entry: TimedLogEntry): void => {
          if (!match(entry)) return;
          cleanup();
          resolve(entry);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no matching log line within ${timeoutMs} ms`));
        }, timeoutMs);
        const cleanup = (): void => {
          clearTimeout(timer);
          waiters.delete(waiter);
        };
        waiters.add(waiter);
      }),
  };
}
