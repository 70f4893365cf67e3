#!/usr/bin/env node
// Bundles e2e/perf/src/update-baseline.ts (as the benchmarks' targets bundle theirs) and runs it with this
// command's arguments: `node e2e/perf/update-baseline.mjs [ID…] [--runs N]`. `npx nx run e2e-perf:update-baseline`
// builds the packages the benchmarks start first.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const outfile = join(here, 'dist', 'update-baseline.js');
buildSync({
  entryPoints: [join(here, 'src', 'update-baseline.ts')],
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  conditions: ['@kdp/source'],
  external: ['esbuild'],
  outfile,
  logLevel: 'warning',
});
const { status } = spawnSync(process.execPath, [outfile, ...process.argv.slice(2)], {
  cwd: join(here, '..', '..'),
  stdio: 'inherit',
});
process.exit(status ?? 1);
