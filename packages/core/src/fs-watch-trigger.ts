import { watch, type FSWatcher } from 'node:fs';
import type { ScanTrigger } from './polling-source';

/**
 * A scan trigger that fires on any `fs.watch` (inotify) event under `paths`. Paths that cannot be watched are
 * skipped silently: the polling source's interval remains the fallback.
 */
export function createFsWatchTrigger(paths: readonly string[]): ScanTrigger {
  return (fire) => {
    const watchers: FSWatcher[] = [];
    for (const path of paths) {
      try {
        const watcher = watch(path, { persistent: false }, () => fire());
        watcher.on('error', () => watcher.close());
        watchers.push(watcher);
      } catch {
        // Not watchable (missing, permissions): the poll covers it.
      }
    }
    return () => {
      for (const watcher of watchers) watcher.close();
    };
  };
}
