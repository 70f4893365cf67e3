import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';

/**
 * Bundles a TypeScript entry point into a runnable CommonJS file in a fresh temporary directory, with the
 * same settings as the package's `build` target, so tests can run it as a process. Returns the file's path.
 */
export function bundleEntry(entry: string, name: string): string {
  const outfile = join(mkdtempSync(join(tmpdir(), 'ks-b-')), name);
  buildSync({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    conditions: ['@kdp/source'],
    banner: { js: '#!/usr/bin/env node' },
    outfile,
    logLevel: 'error',
  });
  return outfile;
}
