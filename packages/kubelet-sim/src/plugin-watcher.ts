import { type FSWatcher, lstatSync, mkdirSync, readdirSync, watch } from 'node:fs';
import { join } from 'node:path';

/** A running watch over the plugins_registry directory. */
export interface PluginWatcher {
  /** Whether the socket is still in the directory (as of the last change seen). */
  has(socketPath: string): boolean;
  close(): void;
}

function currentSockets(dir: string): Set<string> {
  const found = new Set<string>();
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
      if (lstatSync(path).isSocket()) found.add(path);
    } catch {
      // Removed meanwhile.
    }
  }
  return found;
}

/** Watches `dir` for plugin registration sockets appearing and disappearing (P-36). */
export function startPluginWatcher(options: {
  dir: string;
  onAdded(socketPath: string): void;
  onRemoved(socketPath: string): void;
}): PluginWatcher {
  mkdirSync(options.dir, { recursive: true, mode: 0o750 });
  let known = new Set<string>();
  const rescan = (): void => {
    const now = currentSockets(options.dir);
    for (const path of known) if (!now.has(path)) options.onRemoved(path);
    for (const path of now) if (!known.has(path)) options.onAdded(path);
    known = now;
  };
  const watcher: FSWatcher = watch(options.dir, () => rescan());
  watcher.on('error', () => undefined);
  rescan();
  return { has: (socketPath) => known.has(socketPath), close: () => watcher.close() };
}
