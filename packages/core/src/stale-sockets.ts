import { lstat, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { socketNamePrefix } from './socket-path';
import { isDialable } from '@kdp/base';

/**
 * Removes sockets a dead earlier instance of the resource whose socket is `keep` left in `dir`: only files named
 * like `keep` up to its instance ID (`<sanitized-resource>-*.sock`, or its shortened form), only sockets, only when
 * nobody answers a dial (a live instance, e.g. during a maxSurge rollout, keeps its socket). Returns the removed
 * paths.
 */
export async function removeStaleSockets(dir: string, keep: string): Promise<string[]> {
  const prefix = socketNamePrefix(keep);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    if (!name.startsWith(prefix) || !name.endsWith('.sock') || path === keep) continue;
    // The rest of the name must be an instance ID, not another resource that shares this prefix.
    if (name.slice(prefix.length, -'.sock'.length).includes('-')) continue;
    try {
      if (!(await lstat(path)).isSocket()) continue;
      if (await isDialable(path, 500)) continue;
      await unlink(path);
      removed.push(path);
    } catch {
      // Gone already, or not ours to remove.
    }
  }
  return removed;
}
