import { stat } from 'node:fs/promises';
import { UsageError } from './exit-code';

/**
 * Checks that each `[flag, path]` names an existing directory; throws {@link UsageError} naming the first flag and
 * path that does not (`--sysfs-root /x: no such directory`).
 */
export async function requireDirectories(dirs: ReadonlyArray<readonly [string, string]>): Promise<void> {
  for (const [name, dir] of dirs) {
    const info = await stat(dir).catch(() => undefined);
    if (!info) throw new UsageError(`${name} ${dir}: no such directory`);
    if (!info.isDirectory()) throw new UsageError(`${name} ${dir}: not a directory`);
  }
}
