import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A short-named temporary directory (unix socket paths must stay under 107 bytes) and its removal. */
export function makeTempDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'mon-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
