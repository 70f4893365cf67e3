import { watch, type FSWatcher } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, relative } from 'node:path';

/** What {@link createConfigFileWatch} follows and whom it tells. */
export interface ConfigFileWatchOptions {
  /** The configuration file or directory (may be a symlink, e.g. a ConfigMap key). */
  readonly file: string;
  /** Quiet time after the last event before `onChange`. */
  readonly debounceMs: number;
  /** Fallback poll of the file's identity and size (0 = off). */
  readonly pollIntervalMs: number;
  /** Called once per burst of changes. */
  readonly onChange: () => void;
}

/** Watches of a configuration file's directories, with a fallback poll. */
export interface ConfigFileWatch {
  /** Starts watching and polling. */
  start(): Promise<void>;
  /** Watches the directories the file (and its symlink target, and a configuration directory) lives in now. */
  refresh(): Promise<void>;
  /** Stops every watch, the poll and a pending `onChange` (idempotent). */
  close(): void;
}

/**
 * Creates the watch of a configuration file. It watches the directory rather than the file, so editors that
 * write a new file and rename it over the old one, and Kubernetes ConfigMap volumes that swap the `..data`
 * symlink, are both seen; the slow poll catches what the watch misses.
 */
export function createConfigFileWatch(options: ConfigFileWatchOptions): ConfigFileWatch {
  const { file } = options;
  const watchers = new Map<string, FSWatcher>();
  let closed = false;
  let debounce: NodeJS.Timeout | undefined;
  let poll: NodeJS.Timeout | undefined;
  let lastIdentity: string | undefined;

  const schedule = (): void => {
    if (closed) return;
    if (debounce) clearTimeout(debounce);
    debounce = setTimeout(() => {
      debounce = undefined;
      options.onChange();
    }, options.debounceMs);
    debounce.unref();
  };

  const watchDir = (dir: string, names: Set<string> | 'all'): void => {
    if (watchers.has(dir)) return;
    try {
      const watcher = watch(dir, { persistent: false }, (_event, name) => {
        // ConfigMap volumes swap `..data`; editors write a temp file and rename it over the target.
        if (
          name === null ||
          names === 'all' ||
          names.has(name.toString()) ||
          name.toString().startsWith('..')
        )
          schedule();
      });
      watcher.on('error', () => {
        watcher.close();
        watchers.delete(dir);
      });
      watchers.set(dir, watcher);
    } catch {
      // The directory may not exist yet; the poll keeps trying.
    }
  };

  const refresh = async (): Promise<void> => {
    if (closed) return;
    const dir = dirname(file);
    watchDir(dir, new Set([basename(file)]));
    // A configuration directory (one key per node): any of its keys may be the one chosen.
    if ((await stat(file).catch(() => undefined))?.isDirectory() === true) watchDir(file, 'all');
    try {
      const real = await realpath(file);
      const realDir = dirname(real);
      const rel = relative(dir, realDir);
      // A target inside the watched directory (ConfigMap `..data/…`) is covered by the `..` rule.
      if (!closed && (rel.startsWith('..') || isAbsolute(rel))) watchDir(realDir, new Set([basename(real)]));
    } catch {
      // Missing right now; the next event or poll tries again.
    }
  };

  return {
    async start() {
      lastIdentity = await identity(file);
      await refresh();
      if (!(options.pollIntervalMs > 0)) return;
      poll = setInterval(() => {
        void identity(file).then((id) => {
          if (id !== lastIdentity) {
            lastIdentity = id;
            schedule();
          }
          if (!watchers.has(dirname(file))) void refresh();
        });
      }, options.pollIntervalMs);
      poll.unref();
    },
    refresh,
    close() {
      if (closed) return;
      closed = true;
      if (debounce) clearTimeout(debounce);
      if (poll) clearInterval(poll);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}

/** Device, inode, size and mtime of the file, or `missing`. */
async function identity(file: string): Promise<string> {
  try {
    const s = await stat(file);
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return 'missing';
  }
}
