import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Options of {@link writeFileAtomic}. */
export interface WriteFileAtomicOptions {
  /** The file's mode, set whatever the umask (default 0o644). */
  readonly mode?: number;
}

/**
 * Writes a file so that a reader sees the old content or the new, never a part: a dot-named temporary file in the
 * same directory (readers that list the directory skip it), written, synced, given `mode`, then renamed over
 * `path`; on failure the temporary file is removed and the error rethrown.
 */
export async function writeFileAtomic(
  path: string,
  data: string,
  options: WriteFileAtomicOptions = {},
): Promise<void> {
  const mode = options.mode ?? 0o644;
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx', mode);
    try {
      await handle.chmod(mode); // the umask may have narrowed the mode given to open
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}
