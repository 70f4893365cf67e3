import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A temporary directory and its removal. */
export interface TempDir {
  /** The directory, under os.tmpdir(). */
  readonly path: string;
  /** Deletes the directory and everything in it (nothing happens when it is gone). */
  remove(): void;
}

/** Creates a directory under os.tmpdir() named `<prefix>XXXXXX`; keep the prefix short (unix socket paths ≤ 107 bytes). */
export function createTempDir(prefix = 'kdp-'): TempDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
