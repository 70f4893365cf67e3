// Bundles bench/scan-bench.ts with esbuild (sources resolved through the @kdp/source condition) and runs it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'sriov-bench-'));
try {
  const outfile = join(out, 'scan-bench.js');
  await build({
    entryPoints: [join(here, 'scan-bench.ts')],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    conditions: ['@kdp/source'],
    outfile,
    logLevel: 'warning',
  });
  execFileSync(process.execPath, [outfile], { stdio: 'inherit' });
} finally {
  rmSync(out, { recursive: true, force: true });
}
