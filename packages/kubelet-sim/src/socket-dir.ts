import { lstatSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointFileName } from '@kdp/api';

/** Creates the device-plugin directory with mode 0750 when it is missing (P-1). */
export function ensureSocketDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o750 });
}

/**
 * Deletes every socket in `dir` except the checkpoint, skipping subdirectories and regular files, as a
 * current kubelet does on start (P-2); `keep` names further paths to leave alone. Returns what it deleted.
 */
export function removeSockets(dir: string, keep: readonly string[] = []): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const path = join(dir, name);
    if (name === CheckpointFileName || keep.includes(path)) continue;
    try {
      if (!lstatSync(path).isSocket()) continue;
      rmSync(path, { force: true });
      removed.push(path);
    } catch {
      // Gone meanwhile: nothing to delete.
    }
  }
  return removed;
}
