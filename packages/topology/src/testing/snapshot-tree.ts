import { lstatSync, readdirSync, readlinkSync, type Stats } from 'node:fs';
import { join } from 'node:path';

/**
 * What a directory tree holds, by relative path ('' for the directory itself): kind, inode, size, mode and
 * modification time of files and directories, the target of links, the kind of anything else (FIFOs, sockets:
 * no times, as writing to a FIFO changes them). Links are never followed and file contents never read, so it
 * costs one lstat per entry however large the files. Two snapshots differ when anything was written.
 */
export function snapshotTree(dir: string): Map<string, string> {
  const snapshot = new Map<string, string>();
  const visit = (relative: string): void => {
    const path = relative === '' ? dir : join(dir, relative);
    let info: Stats;
    try {
      info = lstatSync(path);
    } catch {
      return; // removed while walking
    }
    snapshot.set(relative, describe(path, info));
    if (!info.isDirectory()) return;
    let names: string[];
    try {
      names = readdirSync(path);
    } catch {
      return;
    }
    for (const name of names.sort()) visit(relative === '' ? name : `${relative}/${name}`);
  };
  visit('');
  return snapshot;
}

function describe(path: string, info: Stats): string {
  if (info.isSymbolicLink()) {
    try {
      return `link -> ${readlinkSync(path)}`;
    } catch {
      return 'link';
    }
  }
  const stamp = `ino ${info.ino} mode ${info.mode.toString(8)} size ${info.size} mtime ${info.mtimeMs}`;
  if (info.isFile()) return `file ${stamp}`;
  if (info.isDirectory()) return `directory ${stamp}`;
  if (info.isFIFO()) return 'fifo';
  if (info.isSocket()) return 'socket';
  return 'special';
}

/** The paths whose entry differs between two snapshots (added, removed or changed), sorted. */
export function changedPaths(
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
): string[] {
  const changed = new Set<string>();
  for (const [path, state] of after) if (before.get(path) !== state) changed.add(path);
  for (const path of before.keys()) if (!after.has(path)) changed.add(path);
  return [...changed].sort();
}
