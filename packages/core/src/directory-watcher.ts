import { watch, type FSWatcher } from 'node:fs';
import { lstat } from 'node:fs/promises';

/** Reports file names created, deleted or renamed in one directory (`null` when the OS does not say which). */
export interface DirectoryWatcher {
  subscribe(listener: (name: string | null) => void): () => void;
  /** Re-creates the watch if the directory appeared or was replaced since; called from the slow poll. */
  refresh(): Promise<void>;
  /** Whether inotify watches the directory now (the slow poll can then be slower still). */
  watching(): boolean;
  close(): void;
}

/** Watches `dir` with `fs.watch` (inotify); a missing directory is watched once it exists (see `refresh`). */
export function createDirectoryWatcher(dir: string): DirectoryWatcher {
  const listeners = new Set<(name: string | null) => void>();
  let watcher: FSWatcher | undefined;
  let watchedIno: number | undefined;
  let closed = false;
  const fire = (name: string | null): void => {
    for (const listener of [...listeners]) listener(name);
  };
  const stopWatching = (): void => {
    watcher?.close();
    watcher = undefined;
    watchedIno = undefined;
  };
  const refresh = async (): Promise<void> => {
    if (closed) return;
    let ino: number | undefined;
    try {
      ino = (await lstat(dir)).ino;
    } catch {
      ino = undefined;
    }
    if (closed || (ino === watchedIno && watcher !== undefined)) return;
    stopWatching();
    if (ino === undefined) return;
    try {
      const created = watch(dir, { persistent: false }, (_event, name) =>
        fire(name === null ? null : String(name)),
      );
      created.on('error', () => {
        if (watcher === created) stopWatching();
      });
      watcher = created;
      watchedIno = ino;
      // Whatever happened while nobody watched is unknown: let listeners look.
      fire(null);
    } catch {
      // Not watchable now; the next refresh tries again and the slow poll covers the gap.
    }
  };
  void refresh();
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    refresh,
    watching: () => watcher !== undefined,
    close() {
      closed = true;
      stopWatching();
      listeners.clear();
    },
  };
}
