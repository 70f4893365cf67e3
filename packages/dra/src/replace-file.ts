import { randomBytes } from 'node:crypto';
import { rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Replaces `path` so that a reader sees the old content or the new, never a part: a dot-named temporary file in
 * the same directory, created with `mode` (exclusive), written and renamed over `path`; on failure the temporary
 * file is removed and the error rethrown. Nothing is synced: durability is the caller's (`syncDirectory`).
 */
export async function replaceFile(path: string, data: string, mode: number): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(temp, data, { mode, flag: 'wx' });
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}
