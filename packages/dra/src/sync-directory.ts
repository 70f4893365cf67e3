import { open } from 'node:fs/promises';

/** Flushes a directory's entries to disk (`fsync` of the directory): the renames done in it are durable. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
