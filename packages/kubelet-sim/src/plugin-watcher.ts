import { type FSWatcher, lstatSync, mkdirSync, readdirSync, watch } from 'node:fs';
import { join } from 'node:path';

/** A running watch over the plugins_registry directory. */
export interface PluginWatcher {
  /** Whether the socket is still in the directory (as of the last change seen). */
  has(socketPath: string): boolean;
  close(): void;
}

/** Each socket of `dir` with its identity (inode and birth time): a socket re-created in place is another. */
function currentSockets(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return found;
  }
  for (const name of names) {
    // P-36: a socket whose name starts with "." is ignored.
    if (name.startsWith('.')) continue;
    const path = join(dir, name);
    try {
      const stat = lstatSync(path, { bigint: true });
      if (stat.isSocket()) found.set(path, `${stat.ino}:${stat.birthtimeNs}`);
    } catch {
      // Removed meanwhile.
    }
  }
  return found;
}

/**
 * Watches `dir` for plugin registration sockets appearing and disappearing (P-36). A socket deleted and created
 * again between two looks (a plugin restarted at once) is removed and added, as the kubelet's watcher registers
 * the plugin again on every create event.
 */
export function startPluginWatcher(options: {
  dir: string;
  onAdded(socketPath: string): void;
  onRemoved(socketPath: string): void;
}): PluginWatcher {
  mkdirSync(options.dir, { recursive: true, mode: 0o750 });
  let known = new Map<string, string>();
  const rescan = (): void => {
    const now = currentSockets(options.dir);
    for (const [path, identity] of known) if (now.get(path) !== identity) options.onRemoved(path);
    for (const [path, identity] of now) if (known.get(path) !== identity) options.onAdded(path);
    known = now;
  };
  const watcher: FSWatcher = watch(options.dir, () => rescan());
  watcher.on('error', () => undefined);
  rescan();
  return { has: (socketPath) => known.has(socketPath), close: () => watcher.close() };
}
